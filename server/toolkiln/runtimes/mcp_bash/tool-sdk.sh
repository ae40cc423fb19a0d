#!/usr/bin/env bash
# toolkiln's runtime for tools written for mcp-bash-framework: the helpers of its
# documented tool SDK (sdk/tool-sdk.sh), on toolkiln's conventions, so that a tool that
# does `source "${MCP_SDK}/tool-sdk.sh"` runs unmodified under `toolkiln serve`.
#
# - Arguments: MCP_TOOL_ARGS_JSON (set by toolkiln), else MCP_TOOL_ARGS_FILE, else the
#   JSON object toolkiln writes on stdin. Filters run with jq or gojq when toolkiln found
#   one (MCPBASH_JSON_TOOL_BIN), else with a small jq subset in python3 (sdk_json.py).
# - Progress and logs: toolkiln's structured stderr lines (`PROGRESS n/100 msg`, `INFO ...`).
# - Results: stdout, as mcp-bash: text, JSON, or a CallToolResult (mcp_result_success).
# - Errors: mcp_fail prints the message on stderr and exits 2 for -32602 (a bad
#   request), else 1.
# Not provided: elicitation (answers "decline"), cancellation files (toolkiln stops the
# process group instead), roots (none are passed), config and download helpers.

set -euo pipefail

__MCP_SDK_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
MCP_TOOL_CANCELLATION_FILE="${MCP_CANCEL_FILE:-}"
MCP_PROGRESS_STREAM="${MCP_PROGRESS_STREAM:-}"
MCP_LOG_STREAM="${MCP_LOG_STREAM:-}"
MCP_PROGRESS_TOKEN="${MCP_PROGRESS_TOKEN:-}"

# toolkiln writes the arguments on stdin and closes it; read them once, now, when they
# are not in the environment (too big for it). A terminal is never waited on.
if [ -z "${MCP_TOOL_ARGS_JSON+set}" ] && [ -z "${MCP_TOOL_ARGS_FILE:-}" ] && [ ! -t 0 ]; then
	MCP_TOOL_ARGS_JSON="$(cat || true)"
	[ -n "${MCP_TOOL_ARGS_JSON}" ] || MCP_TOOL_ARGS_JSON='{}'
fi

__mcp_sdk_python() {
	"${MCP_SDK_PYTHON:-python3}" "${__MCP_SDK_DIR}/sdk_json.py" "$@"
}

__mcp_sdk_warn() {
	printf '%s\n' "$1" >&2
}

__mcp_sdk_json_escape() {
	# A JSON string literal. Plain bash for the usual text; jq or python3 when the value
	# holds control characters that bash's replacements below do not cover.
	local value="${1-}"
	local escaped="${value//\\/\\\\}"
	escaped="${escaped//\"/\\\"}"
	escaped="${escaped//$'\n'/\\n}"
	escaped="${escaped//$'\r'/\\r}"
	escaped="${escaped//$'\t'/\\t}"
	if [[ "${escaped}" =~ [[:cntrl:]] ]]; then
		if [ -n "${MCPBASH_JSON_TOOL_BIN:-}" ]; then
			"${MCPBASH_JSON_TOOL_BIN}" -n --arg val "${value}" '$val' | tr -d '\n'
		else
			__mcp_sdk_python escape "${value}"
		fi
		return 0
	fi
	printf '"%s"' "${escaped}"
}

__mcp_sdk_compact() {
	# One JSON value from stdin, compact; non-zero when it is not JSON.
	if [ -n "${MCPBASH_JSON_TOOL_BIN:-}" ]; then
		"${MCPBASH_JSON_TOOL_BIN}" -c . 2>/dev/null | tr -d '\n'
		return "${PIPESTATUS[0]}"
	fi
	__mcp_sdk_python compact
}

# JSON helpers -----------------------------------------------------------------

mcp_json_escape() {
	__mcp_sdk_json_escape "${1-}"
}

mcp_json_obj() {
	if [ $(($# % 2)) -ne 0 ]; then
		__mcp_sdk_warn "mcp_json_obj: expected even number of arguments (key value ...), got $#"
		exit 1
	fi
	local json="{" sep=""
	while [ "$#" -gt 0 ]; do
		json="${json}${sep}$(__mcp_sdk_json_escape "$1"):$(__mcp_sdk_json_escape "$2")"
		sep=","
		shift 2
	done
	printf '%s}' "${json}"
}

mcp_json_arr() {
	local json="[" sep=""
	while [ "$#" -gt 0 ]; do
		json="${json}${sep}$(__mcp_sdk_json_escape "$1")"
		sep=","
		shift
	done
	printf '%s]' "${json}"
}

mcp_is_valid_json() {
	printf '%s' "${1-}" | __mcp_sdk_compact >/dev/null 2>&1
}

mcp_byte_length() {
	printf '%s' "${1-}" | wc -c | tr -d ' '
}

# Arguments and request metadata ---------------------------------------------------

mcp_args_raw() {
	if [ -n "${MCP_TOOL_ARGS_FILE:-}" ] && [ -f "${MCP_TOOL_ARGS_FILE}" ]; then
		cat "${MCP_TOOL_ARGS_FILE}"
	else
		local empty='{}'
		printf '%s' "${MCP_TOOL_ARGS_JSON:-${empty}}"
	fi
}

mcp_meta_raw() {
	local empty='{}'
	printf '%s' "${MCP_TOOL_META_JSON:-${empty}}"
}

__mcp_sdk_filter() {
	# $1: the JSON document; $2: a jq filter. Prints what `jq -r` would.
	local payload="$1" filter="$2" rc=0 result=""
	if [ -n "${MCPBASH_JSON_TOOL_BIN:-}" ]; then
		result="$(printf '%s' "${payload}" | "${MCPBASH_JSON_TOOL_BIN}" -rc "${filter}" 2>/dev/null)" || rc=$?
	else
		result="$(printf '%s' "${payload}" | __mcp_sdk_python get "${filter}")" || rc=$?
	fi
	if [ "${rc}" -ne 0 ]; then
		__mcp_sdk_warn "mcp_args_get: the filter ${filter} failed (exit ${rc})"
		result=""
	fi
	printf '%s' "${result}"
	return "${rc}"
}

__mcp_sdk_get_with_default() {
	# $1: the document; $2: the filter; then [--default VALUE].
	local payload="$1" filter="$2" has_default=false default_value="" rc=0 result=""
	shift 2
	if [ "${1-}" = "--default" ]; then
		has_default=true
		default_value="${2-}"
	fi
	result="$(__mcp_sdk_filter "${payload}" "${filter}")" || rc=$?
	if [ "${has_default}" = true ] && { [ -z "${result}" ] || [ "${result}" = "null" ]; }; then
		printf '%s' "${default_value}"
		return 0
	fi
	printf '%s' "${result}"
	return "${rc}"
}

mcp_args_get() {
	__mcp_sdk_get_with_default "$(mcp_args_raw)" "$@"
}

mcp_meta_get() {
	__mcp_sdk_get_with_default "$(mcp_meta_raw)" "$@"
}

mcp_args_require() {
	local pointer="$1" message="${2:-}" raw
	raw="$(mcp_args_get "${pointer}" 2>/dev/null || true)"
	if [ -z "${raw}" ] || [ "${raw}" = "null" ]; then
		mcp_fail_invalid_args "${message:-${pointer} is required}"
	fi
	printf '%s' "${raw}"
}

mcp_args_bool() {
	local pointer="$1" default_set=false default_value=false raw
	shift || true
	if [ "${1-}" = "--default" ]; then
		default_set=true
		default_value="${2-}"
	fi
	raw="$(mcp_args_get "${pointer}" 2>/dev/null || true)"
	if [ -z "${raw}" ] || [ "${raw}" = "null" ]; then
		[ "${default_set}" = true ] || mcp_fail_invalid_args "${pointer} is required"
		raw="${default_value}"
	fi
	case "${raw}" in
	true | 1) printf 'true' ;;
	*) printf 'false' ;;
	esac
}

mcp_args_int() {
	local pointer="$1" default_set=false default_value="" min="" max="" raw
	shift || true
	while [ "$#" -gt 0 ]; do
		case "$1" in
		--default) default_set=true default_value="${2-}" ;;
		--min) min="${2-}" ;;
		--max) max="${2-}" ;;
		*) break ;;
		esac
		shift 2 || shift $#
	done
	raw="$(mcp_args_get "${pointer}" 2>/dev/null || true)"
	if [ -z "${raw}" ] || [ "${raw}" = "null" ]; then
		[ "${default_set}" = true ] || mcp_fail_invalid_args "${pointer} is required"
		raw="${default_value}"
	fi
	[[ "${raw}" =~ ^-?[0-9]+$ ]] || mcp_fail_invalid_args "${pointer} must be an integer"
	if [ -n "${min}" ] && [ "${raw}" -lt "${min}" ]; then
		mcp_fail_invalid_args "${pointer} must be >= ${min}"
	fi
	if [ -n "${max}" ] && [ "${raw}" -gt "${max}" ]; then
		mcp_fail_invalid_args "${pointer} must be <= ${max}"
	fi
	printf '%s' "${raw}"
}

# Progress, logs, cancellation ----------------------------------------------------

mcp_is_cancelled() {
	# toolkiln stops a cancelled call's whole process group; a file is only checked
	# when one is named, as mcp-bash does.
	[ -n "${MCP_TOOL_CANCELLATION_FILE}" ] && [ -f "${MCP_TOOL_CANCELLATION_FILE}" ]
}

__mcp_sdk_one_line() {
	local text="${1-}"
	text="${text//$'\r'/ }"
	printf '%s' "${text//$'\n'/ }"
}

mcp_progress() {
	local percent="${1-0}" message="${2-}"
	case "${percent}" in
	'' | *[!0-9]*) percent=0 ;;
	esac
	[ "${percent}" -le 100 ] || percent=100
	printf 'PROGRESS %s/100 %s\n' "${percent}" "$(__mcp_sdk_one_line "${message}")" >&2
}

mcp_log() {
	# mcp_log LEVEL LOGGER JSON: the JSON (a string is shown as its text) on a log line.
	local level prefix logger="${2-}" payload="${3-}"
	level="$(printf '%s' "${1-info}" | tr '[:upper:]' '[:lower:]')"
	case "${level}" in
	debug) prefix=DEBUG ;;
	info | notice) prefix=INFO ;;
	warning | warn) prefix=WARNING ;;
	error | critical | alert | emergency) prefix=ERROR ;;
	*)
		__mcp_sdk_warn "WARNING mcp_log: invalid level '${1-}', defaulting to 'info'"
		prefix=INFO
		;;
	esac
	if [[ "${payload}" == \"*\" ]]; then
		payload="$(printf '%s' "${payload}" | __mcp_sdk_filter_raw_string)"
	fi
	printf '%s %s: %s\n' "${prefix}" "${logger}" "$(__mcp_sdk_one_line "${payload}")" >&2
}

__mcp_sdk_filter_raw_string() {
	if [ -n "${MCPBASH_JSON_TOOL_BIN:-}" ]; then
		"${MCPBASH_JSON_TOOL_BIN}" -r . 2>/dev/null || cat
	else
		__mcp_sdk_python get . 2>/dev/null || cat
	fi
}

__mcp_sdk_log_text() {
	printf '%s %s: %s\n' "$1" "$2" "$(__mcp_sdk_one_line "${3-}")" >&2
}

mcp_log_debug() { __mcp_sdk_log_text DEBUG "${1-}" "${2-}"; }
mcp_log_info() { __mcp_sdk_log_text INFO "${1-}" "${2-}"; }
mcp_log_warn() { __mcp_sdk_log_text WARNING "${1-}" "${2-}"; }
mcp_log_error() { __mcp_sdk_log_text ERROR "${1-}" "${2-}"; }

mcp_debug() {
	if [ -n "${MCPBASH_DEBUG_LOG:-}" ]; then
		printf '[%s] %s\n' "$(date +%H:%M:%S 2>/dev/null || echo '??:??:??')" "$*" >>"${MCPBASH_DEBUG_LOG}" 2>/dev/null || true
	fi
}

# Results and errors --------------------------------------------------------------

mcp_emit_text() {
	printf '%s' "${1-}"
}

mcp_emit_json() {
	local json="${1-}" compact
	if compact="$(printf '%s' "${json}" | __mcp_sdk_compact 2>/dev/null)" && [ -n "${compact}" ]; then
		printf '%s' "${compact}"
	else
		printf '%s' "${json}"
	fi
}

mcp_fail() {
	# The message (and data) on stderr, which a failed result shows (stdout may be a
	# $(...) that swallows it): exit 2 (bad request) for -32602, else 1. Ends the tool.
	local code="${1-}" message="${2:-Tool failed}" data="${3:-}"
	printf '%s\n' "${message}" >&2
	[ -z "${data}" ] || printf '%s\n' "${data}" >&2
	if [ "${code}" = "-32602" ]; then
		exit 2
	fi
	exit 1
}

mcp_fail_invalid_args() {
	mcp_fail -32602 "${1:-Invalid params}" "${2:-}"
}

mcp_result_success() {
	# A CallToolResult: {"success": true, "result": DATA} as structured content and text.
	local max="${2:-${MCPBASH_MAX_TEXT_BYTES:-102400}}"
	case "${max}" in '' | *[!0-9]*) max=102400 ;; esac
	printf '%s' "${1-}" | __mcp_sdk_python success "${max}"
	return 0
}

mcp_result_error() {
	printf '%s' "${1-}" | __mcp_sdk_python error
	return 0
}

mcp_error() {
	# mcp_error TYPE MESSAGE [--hint HINT] [--data JSON]: an error result; returns 0.
	local kind="${1:-internal_error}" message="${2:-Unknown error}" hint="" data=""
	shift 2 || shift $#
	while [ "$#" -gt 0 ]; do
		case "$1" in
		--hint) hint="${2-}" ;;
		--data) data="${2-}" ;;
		esac
		shift 2 || shift $#
	done
	[ -z "${hint}" ] || mcp_log_warn "mcp_error" "type=${kind} hint: ${hint}"
	mcp_result_error "$(__mcp_sdk_python error-object "${kind}" "${message}" "${hint}" "${data}")"
}

mcp_result_text_with_resource() {
	# Embedded resources are not attached (use toolkiln's rich results for files).
	local data="${1-}"
	shift || true
	[ "$#" -eq 0 ] || mcp_log_warn "sdk" "mcp_result_text_with_resource: resources are not embedded under toolkiln"
	mcp_result_success "${data}"
}

mcp_extract_cli_error() {
	local stdout="${1-}" stderr="${2-}" code="${3-1}" found=""
	if [ -n "${stdout}" ]; then
		found="$(printf '%s' "${stdout}" | __mcp_sdk_filter_quietly '.error.message? // .error? // .message? // empty')"
	fi
	if [ -n "${found}" ] && [ "${found}" != "null" ]; then
		printf '%s' "${found}"
	elif [ -n "${stderr}" ]; then
		printf '%s' "${stderr}"
	else
		printf 'CLI exited with code %s' "${code}"
	fi
}

__mcp_sdk_filter_quietly() {
	local payload
	payload="$(cat)"
	__mcp_sdk_filter "${payload}" "$1" 2>/dev/null || true
}

mcp_json_truncate() {
	local json="" max="" path="" index=0
	while [ "$#" -gt 0 ]; do
		case "$1" in
		--array-path)
			path="${2-}"
			shift 2 || shift $#
			continue
			;;
		esac
		if [ "${index}" -eq 0 ]; then json="$1"; else max="$1"; fi
		index=$((index + 1))
		shift
	done
	case "${max}" in '' | *[!0-9]*) max="${MCPBASH_MAX_TOOL_OUTPUT_SIZE:-10485760}" ;; esac
	printf '%s' "${json}" | __mcp_sdk_python truncate "${max}" "${path}"
}

mcp_with_retry() {
	# mcp_with_retry ATTEMPTS BASE_DELAY -- COMMAND...: exit codes 3 and up are retried.
	local attempts="${1-1}" delay="${2-1}" attempt=1 code=0
	shift 2 || shift $#
	[ "${1-}" != "--" ] || shift
	while true; do
		"$@" && return 0 || code=$?
		if [ "${code}" -le 2 ] || [ "${attempt}" -ge "${attempts}" ]; then
			return "${code}"
		fi
		mcp_log_debug "retry" "attempt ${attempt}/${attempts} failed (exit ${code}), retrying in ${delay}s"
		sleep "${delay}"
		delay="$(awk "BEGIN {print ${delay} * 2}")"
		attempt=$((attempt + 1))
	done
}

mcp_run_with_progress() {
	# The command runs; its progress is not forwarded (toolkiln reads PROGRESS lines).
	while [ "$#" -gt 0 ] && [ "$1" != "--" ]; do shift; done
	[ "$#" -eq 0 ] || shift
	"$@"
}

# Roots, paths, elicitation, UI -----------------------------------------------------

mcp_path_normalize() {
	[ "${1-}" != "--physical" ] || shift
	realpath -m -- "${1-.}" 2>/dev/null || printf '%s' "${1-.}"
}

mcp_roots_list() {
	printf '%s' "${MCP_ROOTS_PATHS:-}"
}

mcp_roots_count() {
	printf '%s' "${MCP_ROOTS_COUNT:-0}"
}

mcp_roots_contains() {
	local canonical root
	canonical="$(mcp_path_normalize "${1-}")"
	while IFS= read -r root; do
		[ -n "${root}" ] || continue
		root="$(mcp_path_normalize "${root}")"
		if [ "${canonical}" = "${root}" ] || [ "${root}" = "/" ] || [ "${canonical:0:$((${#root} + 1))}" = "${root}/" ]; then
			return 0
		fi
	done <<<"${MCP_ROOTS_PATHS:-}"
	return 1
}

mcp_require_path() {
	local pointer="${1-}" allow_empty=false raw
	shift || true
	while [ "$#" -gt 0 ]; do
		case "$1" in
		--allow-empty) allow_empty=true ;;
		esac
		shift
	done
	raw="$(mcp_args_get "${pointer}" 2>/dev/null || true)"
	[ "${raw}" != "null" ] || raw=""
	if [ -z "${raw}" ]; then
		[ "${allow_empty}" = true ] && return 0
		mcp_fail_invalid_args "${pointer} is required"
	fi
	raw="$(mcp_path_normalize "${raw}")"
	if [ "$(mcp_roots_count)" -gt 0 ] && ! mcp_roots_contains "${raw}"; then
		mcp_fail_invalid_args "${pointer} is outside configured MCP roots"
	fi
	printf '%s' "${raw}"
}

mcp_elicit() {
	__mcp_sdk_warn "WARNING mcp_elicit: elicitation is not available to mcp-bash tools under toolkiln"
	printf '{"action":"decline","content":null}'
	return 1
}
mcp_elicit_url() { mcp_elicit "$@"; }
mcp_elicit_string() { mcp_elicit "$@"; }
mcp_elicit_confirm() { mcp_elicit "$@"; }
mcp_elicit_choice() { mcp_elicit "$@"; }
mcp_elicit_titled_choice() { mcp_elicit "$@"; }
mcp_elicit_multi_choice() { mcp_elicit "$@"; }
mcp_elicit_titled_multi_choice() { mcp_elicit "$@"; }

mcp_client_supports_ui() {
	return 1
}
