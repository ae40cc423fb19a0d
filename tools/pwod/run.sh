#!/bin/bash
# Tool: pwod
# Title: Password of the day
# Version: 1.0.0
# Description: Password of the Day: the same date and custom string always give the same password. Generate one, or verify one.
#
# @param function: What to do (type: string, required: true, enum: generate|verify)
# @param date_string: The day, as YYYY-MM-DD; today when left out (type: string, required: false, min: 10, max: 10)
# @param custom_string: A secret of your own mixed into the password (type: string, required: false, default: "")
# @param length: Password length for generate; verify uses the given password's length (type: integer, required: false, default: 16, min: 8, max: 64)
# @param password: The password to check, for verify (type: string, required: false, max: 64)

# pwod shows the annotations dialect: a folder whose run.sh declares the tool in its
# header comments. toolkiln runs it as `run.sh <function> --name=value ...`: the
# `function` parameter comes first, as a bare word, the others as --name=value.
# Nothing here is executed at discovery; the header above is read as text.
set -euo pipefail

usage() {
  echo "usage: run.sh generate|verify [--date_string=YYYY-MM-DD] [--custom_string=S] [--length=N] [--password=P]"
}

fail() {  # fail EXIT_CODE MESSAGE: an ERROR log line on stderr, then exit
  echo "ERROR $2" >&2
  exit "$1"
}

function="" date_string="" custom_string="" length=16 password=""
for arg in "$@"; do
  case "$arg" in
    --help) usage; exit 0 ;;
    --date_string=*) date_string="${arg#*=}" ;;
    --custom_string=*) custom_string="${arg#*=}" ;;
    --length=*) length="${arg#*=}" ;;
    --password=*) password="${arg#*=}" ;;
    --*) fail 2 "unknown option ${arg%%=*}; $(usage)" ;;
    *) [ -z "$function" ] || fail 2 "one function only, got '$function' and '$arg'"; function="$arg" ;;
  esac
done

[ -n "$date_string" ] || date_string="$(date +%F)"
if ! [[ "$date_string" =~ ^[0-9]{4}-[0-9]{2}-[0-9]{2}$ ]] || [ "$(date -d "$date_string" +%F 2>/dev/null)" != "$date_string" ]; then
  fail 2 "date_string must be a real date written YYYY-MM-DD, got '$date_string'"
fi

# The password: SHA-256 blocks of "pwod:<date>:<custom>:<n>", as URL-safe base64, cut to length.
password_for() {  # password_for LENGTH
  local hex="" block
  for block in 0 1; do
    hex+="$(printf '%s' "pwod:$date_string:$custom_string:$block" | sha256sum | cut -d' ' -f1)"
  done
  # shellcheck disable=SC2059  # the format holds only \xHH escapes made from hex digits
  printf "$(printf '%s' "$hex" | sed 's/../\\x&/g')" | base64 -w0 | tr '+/' '-_' | tr -d '=' | cut -c1-"$1"
}

case "$function" in
  generate)
    [[ "$length" =~ ^[0-9]+$ ]] && [ "$length" -ge 8 ] && [ "$length" -le 64 ] ||
      fail 2 "length must be a whole number from 8 to 64, got '$length'"
    echo "DEBUG generating a $length-character password for $date_string" >&2
    printf '{"function": "generate", "date": "%s", "length": %d, "password": "%s"}\n' \
      "$date_string" "$length" "$(password_for "$length")"
    ;;
  verify)
    [ -n "$password" ] || fail 2 "verify needs --password"
    valid=false
    if [ "${#password}" -ge 8 ] && [ "${#password}" -le 64 ] && [ "$password" = "$(password_for "${#password}")" ]; then
      valid=true
    fi
    echo "INFO password for $date_string checked: valid=$valid" >&2
    printf '{"function": "verify", "date": "%s", "valid": %s}\n' "$date_string" "$valid"
    ;;
  "") fail 2 "no function given; $(usage)" ;;
  *) fail 2 "unknown function '$function' (use generate or verify)" ;;
esac
