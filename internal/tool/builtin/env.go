package builtin

import (
	"net/url"
	"slices"
	"strings"
	"unicode"
)

// credentialSuffixes end the names of variables taken for credentials,
// compared without regard to case.
var credentialSuffixes = []string{"_API_KEY", "_TOKEN", "_SECRET"}

// credentialWords make a variable's name a credential's wherever they
// occur in it (DB_PASSWORD, PGPASSWORD, SMTP_PASSWD,
// GOOGLE_APPLICATION_CREDENTIALS, SSH_PRIVATE_KEY), compared without regard
// to case, unless the name ends with one of locationSuffixes.
var credentialWords = []string{"PASSWORD", "PASSWD", "CREDENTIAL", "PRIVATE_KEY"}

// locationSuffixes end the names of variables that say where a credential
// is kept, not what it is: PASSWORD_STORE_DIR (pass), POSTGRES_PASSWORD_FILE
// (Docker's secrets), AWS_SHARED_CREDENTIALS_FILE, systemd's
// CREDENTIALS_DIRECTORY. Their values are paths that the tools using them
// need, and that would be cut out of every output that names them. (The
// names with ASKPASS, such as GIT_ASKPASS, and SSH_AUTH_SOCK hold none of
// credentialWords in the first place.)
var locationSuffixes = []string{"_DIR", "_DIRECTORY", "_FILE", "_PATH", "_SOCK"}

// credentialNames are variables taken for credentials by name (upper case),
// some of which the rules above catch already: the list says what rein
// promises to remove whatever those rules become.
var credentialNames = []string{
	"ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY",
	"ANTHROPIC_AUTH_TOKEN", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "MYSQL_PWD",
}

// hostSessionNames are the variables that tell a program where the
// user's terminal multiplexer, display and session bus are: through them
// a command could have a program run outside the sandbox (tmux
// new-window, an X client). They are removed like credentials, and
// env_passthrough can hand one on all the same.
var hostSessionNames = []string{"TMUX", "TMUX_PANE", "STY", "DISPLAY", "WAYLAND_DISPLAY", "XAUTHORITY", "DBUS_SESSION_BUS_ADDRESS"}

// toolEnvSet are the variables every tool command gets, replacing any of
// the same name: a way for scripts to tell they run under rein, and no
// pager or prompt that would wait for a person who is not there.
var toolEnvSet = []string{"REIN=1", "PAGER=cat", "GIT_PAGER=cat", "GIT_TERMINAL_PROMPT=0"}

// ToolEnv returns the environment a command run by a tool gets, made from
// environ ("NAME=value" entries, as os.Environ returns them).
//
// It removes the variables that look like credentials: a name ending in
// _API_KEY, _TOKEN or _SECRET, or holding PASSWORD, PASSWD, CREDENTIAL or
// PRIVATE_KEY (in any case; not one ending in _DIR, _DIRECTORY, _FILE,
// _PATH or _SOCK, which names where a credential is), one of the
// well-known provider and cloud credentials (ANTHROPIC_API_KEY,
// AWS_SECRET_ACCESS_KEY, ...), a value holding a URL with a password
// (postgres://u:p@h/db), or a value containing one of secrets (empty ones
// are ignored), and the variables that point at the user's terminal
// multiplexer, display or session bus (TMUX, TMUX_PANE, STY, DISPLAY,
// WAYLAND_DISPLAY, XAUTHORITY, DBUS_SESSION_BUS_ADDRESS); a variable that
// passthrough names exactly is kept all the same. Then it sets REIN=1, PAGER=cat, GIT_PAGER=cat and
// GIT_TERMINAL_PROMPT=0, at the end, in place of any variables of those
// names. The other entries keep their order. environ is not modified.
func ToolEnv(environ, passthrough, secrets []string) []string {
	out := make([]string, 0, len(environ)+len(toolEnvSet))
	for _, kv := range environ {
		name, value, _ := strings.Cut(kv, "=")
		if isToolEnvSet(name) {
			continue
		}
		if !slices.Contains(passthrough, name) && (isCredential(name, value, secrets) || slices.Contains(hostSessionNames, name)) {
			continue
		}
		out = append(out, kv)
	}
	return append(out, toolEnvSet...)
}

// isToolEnvSet says whether name is one of the variables ToolEnv sets.
func isToolEnvSet(name string) bool {
	return slices.ContainsFunc(toolEnvSet, func(kv string) bool {
		n, _, _ := strings.Cut(kv, "=")
		return n == name
	})
}

// isCredential says whether a variable looks like a credential by its name
// or its value, or holds one of secrets in its value.
func isCredential(name, value string, secrets []string) bool {
	if credentialName(name) || len(urlPasswords(value)) > 0 {
		return true
	}
	return slices.ContainsFunc(secrets, func(s string) bool {
		return s != "" && strings.Contains(value, s)
	})
}

// credentialName says whether a variable's name is a credential's.
func credentialName(name string) bool {
	upper := strings.ToUpper(name)
	if slices.Contains(credentialNames, upper) {
		return true
	}
	for _, s := range credentialSuffixes {
		if strings.HasSuffix(upper, s) {
			return true
		}
	}
	for _, s := range locationSuffixes {
		if strings.HasSuffix(upper, s) {
			return false
		}
	}
	for _, w := range credentialWords {
		if strings.Contains(upper, w) {
			return true
		}
	}
	return false
}

// urlPasswords returns the passwords of the URLs in value that have one
// (postgres://u:p@h/db, redis://:p@h, https://user:tok@host/), as they are
// written there, percent escapes and all; nil when there is none.
func urlPasswords(value string) []string {
	var out []string
	for rest := value; ; {
		i := strings.Index(rest, "://")
		if i < 0 {
			return out
		}
		scheme := rest[:i]
		scheme = scheme[strings.LastIndexFunc(scheme, func(r rune) bool { return !isSchemeChar(r) })+1:]
		rest = rest[i+3:]
		authority := rest[:strings.IndexFunc(rest+"/", endsAuthority)]
		at := strings.LastIndexByte(authority, '@')
		if scheme == "" || at < 0 {
			continue
		}
		if _, pass, ok := strings.Cut(authority[:at], ":"); ok && pass != "" {
			out = append(out, pass)
		}
	}
}

// isSchemeChar says whether r may be part of a URL's scheme.
func isSchemeChar(r rune) bool {
	return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r == '+' || r == '-' || r == '.'
}

// endsAuthority says whether r ends a URL's authority (its user, password
// and host): a path, a query, a fragment, or a space after the URL. Not a
// comma or a semicolon, which a password may hold as it is.
func endsAuthority(r rune) bool {
	return r == '/' || r == '?' || r == '#' || unicode.IsSpace(r)
}

// minCredential is the shortest value Credentials takes for a secret, as
// eventlog.MinSecret is the shortest the log cuts out: shorter ones ("1",
// "true") would cut ordinary words out of the record.
const minCredential = 8

// Credentials returns what of environ is a credential, as ToolEnv decides
// (passthrough ones included: a token a tool may see must still never be
// recorded), at least 8 bytes long, without repeats: the values of the
// variables whose names are credentials' or that hold a URL with a
// password, and each such password on its own (as written in the URL, and
// decoded when it holds percent escapes). They are what a session's log
// and artifacts must never hold.
func Credentials(environ []string) []string {
	var out []string
	add := func(s string) {
		if len(s) >= minCredential && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	for _, kv := range environ {
		name, value, _ := strings.Cut(kv, "=")
		passwords := urlPasswords(value)
		if !credentialName(name) && len(passwords) == 0 {
			continue
		}
		add(value)
		for _, p := range passwords {
			add(p)
			if decoded, err := url.PathUnescape(p); err == nil {
				add(decoded)
			}
		}
	}
	return out
}
