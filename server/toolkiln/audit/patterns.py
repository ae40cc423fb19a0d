"""What a credential looks like: in an argument's name, and inside any text.

Our own table, with the source of each pattern. The maintained lists were weighed and
not taken: detect-secrets (Yelp) imports `requests` for its verifiers, finds rather than
redacts (its Stripe pattern stops after 24 characters of a 99-character key, its private
key pattern matches only the header line) and has no rule for `github_pat_` or Google
keys; the gitleaks rule list ships in no kept PyPI package. Rule names below are
gitleaks' (config/gitleaks.toml), so a pattern can be checked against its source.

A pattern with a `secret` group has only that group replaced (`postgres://admin:…@db`
keeps the user and host); otherwise the whole match is.
"""

from __future__ import annotations

from typing import NamedTuple

# Words that make an argument's name, or the key of `key=value` in a text, a secret's.
# Compared with the name's words (`accessToken` -> access, token), whole.
SECRET_WORDS = frozenset(
    {
        "password", "passwd", "pwd", "pass", "passphrase", "secret", "secrets", "token",
        "apikey", "auth", "authorization", "credential", "credentials", "creds",
        "session", "sessionid", "cookie", "cookies", "pin", "otp", "totp", "cvv", "cvc",
        "bearer", "jwt", "dsn", "privatekey", "accesskey", "secretkey", "signingkey",
    }
)  # fmt: skip
# Two words that together name a secret (`api_key`, `privateKey`, `connection_string`).
SECRET_PAIRS = frozenset(
    {
        ("api", "key"), ("private", "key"), ("access", "key"), ("secret", "key"),
        ("signing", "key"), ("encryption", "key"), ("account", "key"), ("master", "key"),
        ("client", "secret"), ("connection", "string"), ("set", "cookie"),
    }
)  # fmt: skip
# The end of one word that names a secret (`authtoken`, `dbpassword`, `clientsecret`).
SECRET_ENDINGS = ("token", "secret", "password", "passwd", "apikey", "privatekey", "cookie")
# A word beside a secret word that says the value is about the secret, not the secret
# itself (`tokens_used`, `token_type`, `secret_mode`, `password_min_length`).
HARMLESS_WORDS = frozenset(
    {
        "count", "used", "usage", "limit", "max", "min", "length", "len", "size", "type",
        "kind", "mode", "ttl", "expiry", "expires", "expiration", "enabled", "required",
        "policy", "hint", "strength", "format", "file", "path", "dir", "env", "name",
    }
)  # fmt: skip

_KEY = (
    r"(?:password|passwd|pwd|passphrase|secret|token|api[_-]?key|access[_-]?key|private[_-]?key|"
    r"account[_-]?key|auth|credentials?|session(?:[_-]?id)?|cookie|\bsig)"
)
_TOKEN_CHARS = r"[A-Za-z0-9._~+/-]"
# An Authorization header's parts (RFC 9110 section 11.4): the scheme, then its
# credentials, a token68 or a list of auth-params. The secret is the credentials alone:
# what follows them (the rest of a message, a URL) stays readable. A scheme's name is no
# secret: `Authorization: Bearer <token>` (a placeholder) is kept whole.
_HTTP_TOKEN = r"[A-Za-z0-9!#$%*+.^_`|~-]+"
_SCHEME = r"[A-Za-z][A-Za-z0-9!#$%&*+.^_`|~-]*"
_SCHEMES = r"bearer|basic|digest|token|negotiate|ntlm|hoba|mutual|dpop|gnap|vapid|aws4-hmac-sha256"
# A parameter's value: a quoted string, or anything up to a comma or a space (wider than
# RFC 9110's token: AWS's `Credential=AKIA.../us-east-1/s3`, `SignedHeaders=host;x-amz-date`).
_AUTH_PARAM = rf"{_HTTP_TOKEN}[ \t]*=[ \t]*(?:\"(?:[^\"\\\r\n]|\\.)*\"|[^\s,\"'()<>]+)"
_CREDENTIALS = rf"(?:{_AUTH_PARAM}(?:[ \t]*,[ \t]*{_AUTH_PARAM})*|{_TOKEN_CHARS}+=*)"


class Pattern(NamedTuple):
    """One kind of credential as it appears in text. The regex runs only on a text that
    holds one of `hints` (lower case: looked for in the text made lower case), so that
    an ordinary text costs a few substring searches, not a regex per pattern."""

    what: str
    regex: str
    hints: tuple[str, ...]
    source: str


PATTERNS: tuple[Pattern, ...] = (
    Pattern("private key block",
            r"-----BEGIN[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----[\s\S]*?"
            r"(?:-----END[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----|\Z)",
            ("-----begin",),
            "gitleaks private-key; detect-secrets PrivateKeyDetector (its headers); to the END line"),
    Pattern("an Authorization header's value",
            rf"(?i:(?:proxy-)?authorization)\b[\"']?\s*[:=]\s*[\"']?(?:{_SCHEME}[ \t]+)?"
            rf"(?!(?i:{_SCHEMES})\b)(?P<secret>{_CREDENTIALS})",
            ("authorization",),
            "RFC 9110 section 11.6.2 (Authorization) and 11.4 (credentials = auth-scheme "
            "[ token68 / #auth-param ]): the credentials only, never the text after them"),
    Pattern("a whole value that is an Authorization header's",
            r"\A\s*(?i:bearer|basic|token)\s+(?P<secret>\S+)\s*\Z",
            ("bearer", "basic", "token"),
            "RFC 9110 section 11.4 (credentials = auth-scheme token68)"),
    Pattern("a Bearer or Basic credential",
            rf"(?i:\b(?:bearer|basic))\s+(?P<secret>(?={_TOKEN_CHARS}*[0-9._~+/=-]){_TOKEN_CHARS}{{6,}}=*)",
            ("bearer", "basic"),
            "RFC 6750 section 2.1 (b64token) and RFC 7617; a digit or symbol required, so prose stays"),
    Pattern("credentials in a URL",
            r"\b[A-Za-z][A-Za-z0-9+.-]{0,20}://[^\s:/@\"'<>]*:(?P<secret>[^\s/@\"'<>]+)@",
            ("://",),
            "detect-secrets BasicAuthDetector (any scheme: postgres, mysql, redis, amqp, https...)"),
    Pattern("key=value with a secret's key",
            rf"(?i:{_KEY})\b[\"']?\s*[=:]\s*(?P<secret>\"[^\"\r\n]+\"|'[^'\r\n]+'|[^\s,;&\"'<>)}}\]]+)",
            ("pass", "pwd", "secret", "token", "key", "auth", "credential", "session", "cookie", "sig"),
            "detect-secrets KeywordDetector (its keywords; the assignment in any language or URL)"),
    Pattern("JSON Web Token",
            r"eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}(?:\.[A-Za-z0-9_-]*)?",
            ("eyj",),
            "gitleaks jwt; detect-secrets JwtTokenDetector (the signature optional: a cut token)"),
    Pattern("GitHub token",
            r"(?<![A-Za-z0-9])(?:(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,})",
            ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
            "gitleaks github-pat, github-oauth, github-app-token, github-refresh-token, "
            "github-fine-grained-pat"),
    Pattern("GitLab token",
            r"(?<![A-Za-z0-9])(?:gl(?:pat|dt|ptt|rt|soat|cbt|ft|imt|oas|agent)-[A-Za-z0-9_-]{20,}"
            r"|GR1348941[A-Za-z0-9_-]{20,})",
            ("glpat-", "gldt-", "glptt-", "glrt-", "glsoat-", "glcbt-", "glft-", "glimt-", "gloas-",
             "glagent-", "gr1348941"),
            "gitleaks gitlab-pat, gitlab-deploy-token, gitlab-ptt, gitlab-rrt, gitlab-runner-..."),
    Pattern("Stripe key",
            r"(?<![A-Za-z0-9])(?:(?:sk|rk|pk)_(?:live|test|prod)_[A-Za-z0-9]{10,}|whsec_[A-Za-z0-9]{24,})",
            ("_live_", "_test_", "_prod_", "whsec_"),
            "gitleaks stripe-access-token; Stripe's docs (webhook signing secrets)"),
    Pattern("OpenAI, Anthropic or similar `sk-` key",
            r"(?<![A-Za-z0-9])sk-[A-Za-z0-9_-]{20,}",
            ("sk-",),
            "gitleaks openai-api-key, anthropic-api-key (a wider prefix match)"),
    Pattern("Google API key or OAuth secret",
            r"(?<![A-Za-z0-9])(?:AIza[0-9A-Za-z_-]{35}|ya29\.[0-9A-Za-z_-]{20,}|GOCSPX-[0-9A-Za-z_-]{20,})",
            ("aiza", "ya29.", "gocspx-"),
            "gitleaks gcp-api-key; Google's OAuth docs (access token, client secret prefixes)"),
    Pattern("AWS access key id",
            r"(?<![A-Za-z0-9])(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}(?![A-Za-z0-9])",
            ("a3t", "akia", "asia", "abia", "acca"),
            "gitleaks aws-access-token; detect-secrets AWSKeyDetector"),
    Pattern("AWS secret access key (its shape)",
            r"(?<![A-Za-z0-9/+=])(?=[A-Za-z0-9/+]*[A-Z])(?=[A-Za-z0-9/+]*[a-z])(?=[A-Za-z0-9/+]*[0-9])"
            r"[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])",
            (),  # no literal: run on every text of 40 characters or more
            "AWS IAM docs: 40 base64 characters; gitleaks needs a nearby `aws` word, we ask mixed "
            "case and a digit instead, so hex digests and words stay"),
    Pattern("Slack token or webhook",
            r"(?<![A-Za-z0-9])(?:xox[abposre]-[A-Za-z0-9-]{10,}|xapp-\d-[A-Za-z0-9-]{10,})"
            r"|https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9_/-]+",
            ("xox", "xapp-", "hooks.slack.com"),
            "gitleaks slack-bot-token, slack-user-token, slack-app-token, slack-webhook-url"),
    Pattern("npm, PyPI, Hugging Face, SendGrid, Shopify, DigitalOcean token",
            r"(?<![A-Za-z0-9])(?:npm_[A-Za-z0-9]{36}(?![A-Za-z0-9])|pypi-AgE[A-Za-z0-9_-]{50,}|hf_[A-Za-z]{30,}"
            r"|SG\.[A-Za-z0-9_-]{20,}\.[A-Za-z0-9_-]{40,}|shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}"
            r"|do[por]_v1_[a-f0-9]{64})",
            ("npm_", "pypi-", "hf_", "sg.", "shpat_", "shpca_", "shppa_", "shpss_", "_v1_"),
            "gitleaks npm-access-token, pypi-upload-token, huggingface-access-token, "
            "sendgrid-api-token, shopify-*, digitalocean-*"),
    Pattern("Twilio or Telegram token",
            r"(?<![A-Za-z0-9])(?:SK[0-9a-fA-F]{32}|\d{8,10}:AA[0-9A-Za-z_-]{33})(?![A-Za-z0-9_-])",
            ("sk", ":aa"),
            "gitleaks twilio-api-key, telegram-bot-api-token"),
)  # fmt: skip
