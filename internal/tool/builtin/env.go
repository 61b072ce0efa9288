package builtin

import (
	"slices"
	"strings"
)

// credentialSuffixes end the names of variables taken for credentials,
// compared without regard to case.
var credentialSuffixes = []string{"_API_KEY", "_TOKEN", "_SECRET"}

// credentialNames are variables taken for credentials by name (upper case),
// some of which the suffixes catch already: the list says what rein
// promises to remove whatever the suffix rule becomes.
var credentialNames = []string{
	"ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY",
	"ANTHROPIC_AUTH_TOKEN", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN",
}

// toolEnvSet are the variables every tool command gets, replacing any of
// the same name: a way for scripts to tell they run under rein, and no
// pager or prompt that would wait for a person who is not there.
var toolEnvSet = []string{"REIN=1", "PAGER=cat", "GIT_PAGER=cat", "GIT_TERMINAL_PROMPT=0"}

// ToolEnv returns the environment a command run by a tool gets, made from
// environ ("NAME=value" entries, as os.Environ returns them).
//
// It removes the variables that look like credentials: a name ending in
// _API_KEY, _TOKEN or _SECRET (in any case), one of the well-known
// provider and cloud credentials (ANTHROPIC_API_KEY, AWS_SECRET_ACCESS_KEY,
// ...), or a value containing one of secrets (empty ones are ignored);
// a variable that passthrough names exactly is kept all the same. Then it
// sets REIN=1, PAGER=cat, GIT_PAGER=cat and GIT_TERMINAL_PROMPT=0, at the
// end, in place of any variables of those names. The other entries keep
// their order. environ is not modified.
func ToolEnv(environ, passthrough, secrets []string) []string {
	out := make([]string, 0, len(environ)+len(toolEnvSet))
	for _, kv := range environ {
		name, value, _ := strings.Cut(kv, "=")
		if isToolEnvSet(name) {
			continue
		}
		if !slices.Contains(passthrough, name) && isCredential(name, value, secrets) {
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
// or holds one of secrets in its value.
func isCredential(name, value string, secrets []string) bool {
	upper := strings.ToUpper(name)
	for _, s := range credentialSuffixes {
		if strings.HasSuffix(upper, s) {
			return true
		}
	}
	if slices.Contains(credentialNames, upper) {
		return true
	}
	return slices.ContainsFunc(secrets, func(s string) bool {
		return s != "" && strings.Contains(value, s)
	})
}

// minCredential is the shortest value Credentials takes for a secret:
// shorter ones ("1", "true") would cut ordinary words out of the record.
const minCredential = 8

// Credentials returns the values of the variables of environ that look
// like credentials by their names (as ToolEnv decides, passthrough ones
// included: a token a tool may see must still never be recorded), at least
// 8 bytes long, without repeats. They are what a session's log and
// artifacts must never hold.
func Credentials(environ []string) []string {
	var out []string
	for _, kv := range environ {
		name, value, _ := strings.Cut(kv, "=")
		if len(value) >= minCredential && isCredential(name, "", nil) && !slices.Contains(out, value) {
			out = append(out, value)
		}
	}
	return out
}
