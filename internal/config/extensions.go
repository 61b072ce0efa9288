package config

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/BurntSushi/toml"
)

// HookEvents are the hook events a [[hooks.EVENT]] table may name, in the
// order their hooks are listed.
var HookEvents = []string{"PreToolUse", "PostToolUse", "UserPromptSubmit", "SessionStart", "Stop"}

// DefaultMaxStopContinues is how many times Stop hooks may make one run
// go on when max_stop_continues is not set.
const DefaultMaxStopContinues = 2

// HookEntry is one [[hooks.EVENT]] table as written.
type HookEntry struct {
	// Matcher is a regular expression over tool names (rein's and Claude
	// Code's: bash and Bash), matched whole; "" or "*" matches every tool.
	// Only the tool events use it.
	Matcher string `toml:"matcher"`
	// Command is run with sh -c in the workspace root.
	Command string `toml:"command"`
	// Timeout is in seconds; 0 means 60.
	Timeout float64 `toml:"timeout"`
}

// Hook is one of the person's hooks, as the session runs it.
type Hook struct {
	Event, Matcher, Command string
	// Timeout is 0 for the hook runner's default.
	Timeout time.Duration
	// Source is the file and line of its table.
	Source string
}

// checkHooks validates the [[hooks.EVENT]] tables of d, each error naming
// the file and the line of the table.
func (d *decoded) checkHooks() error {
	for _, event := range slices.Sorted(maps.Keys(d.HookTables)) {
		if !slices.Contains(HookEvents, event) {
			return fmt.Errorf("config: %s: there is no hook event %q; the events are %s",
				d.hookAt(event, 0), event, strings.Join(HookEvents, ", "))
		}
		for i, h := range d.HookTables[event] {
			switch {
			case strings.TrimSpace(h.Command) == "":
				return fmt.Errorf("config: %s: a %s hook needs a command", d.hookAt(event, i), event)
			case h.Timeout < 0 || h.Timeout > 24*3600:
				return fmt.Errorf("config: %s: the %s hook's timeout is %v; want seconds, more than 0 (0 means 60)", d.hookAt(event, i), event, h.Timeout)
			}
			if m := h.Matcher; m != "" && m != "*" {
				if _, err := regexp.Compile("^(?:" + m + ")$"); err != nil {
					return fmt.Errorf("config: %s: the %s hook's matcher %q is not a regular expression: %v", d.hookAt(event, i), event, m, err)
				}
			}
		}
	}
	if d.MaxStopContinues != nil && (*d.MaxStopContinues < 0 || *d.MaxStopContinues > 10) {
		return fmt.Errorf("config: %s: max_stop_continues is %d; want 0 to 10", d.at("max_stop_continues"), *d.MaxStopContinues)
	}
	return nil
}

// applyHooks adds d's hooks to c's, in the order of HookEvents and, within
// an event, of the file.
func (c *Config) applyHooks(d *decoded) {
	for _, event := range HookEvents {
		for i, h := range d.HookTables[event] {
			c.Hooks = append(c.Hooks, Hook{Event: event, Matcher: h.Matcher, Command: h.Command,
				Timeout: time.Duration(h.Timeout * float64(time.Second)), Source: d.hookAt(event, i)})
		}
	}
	if d.MaxStopContinues != nil {
		c.MaxStopContinues = *d.MaxStopContinues
		c.Source["max_stop_continues"] = d.path
	}
	for path, hash := range d.Trusted {
		if c.Trusted == nil {
			c.Trusted = map[string]string{}
		}
		c.Trusted[path] = hash
	}
}

// hookAt is the file and line of the i-th [[hooks.EVENT]] table of d, or
// the file alone when it is not written that way.
func (d *decoded) hookAt(event string, i int) string {
	n := 0
	for ln, l := range strings.Split(d.text, "\n") {
		t := strings.Join(strings.Fields(l), "")
		if t == "[[hooks."+event+"]]" || t == `[[hooks."`+event+`"]]` {
			if n == i {
				return where(d.path, ln+1)
			}
			n++
		}
	}
	return d.path
}

// TrustHash is how [trusted] remembers a file's content: "sha256:<hex>".
func TrustHash(data []byte) string {
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// IsTrusted says whether the person trusted the file at path with the
// content data: its [trusted] entry holds data's hash.
func (c *Config) IsTrusted(path string, data []byte) bool {
	h, ok := c.Trusted[path]
	return ok && h == TrustHash(data)
}

// TrustedBefore says whether the person trusted some other content of
// the file at path: it has changed since.
func (c *Config) TrustedBefore(path string) bool {
	_, ok := c.Trusted[path]
	return ok
}

// SaveTrust remembers in the person's own config.toml, userFile, that
// they trust the file at path with the content whose TrustHash is hash:
// path = hash in its [trusted] table, replacing the entry of path, the
// table added at the end when missing, the file (0600) and its directory
// created when missing. The rest of the file is kept byte for byte, and
// the result is checked by decoding it again; a file that is not TOML is
// left alone and reported. The write is atomic: a reader sees the old file
// or the new one.
func SaveTrust(userFile, path, hash string) error {
	src, err := readUser(userFile)
	if err != nil {
		return err
	}
	out := setTrusted(src, path, hash)
	var back struct {
		Trusted map[string]string `toml:"trusted"`
	}
	if _, err := toml.Decode(out, &back); err != nil || back.Trusted[path] != hash {
		return fmt.Errorf("config: %s: could not add %s to its [trusted] table (is [trusted] written another way?); add %s = %q there yourself",
			userFile, path, tomlString(path), hash)
	}
	return writeUser(userFile, out)
}

// setTrusted is the TOML text src with path = hash in its [trusted] table.
func setTrusted(src, path, hash string) string {
	entry := tomlString(path) + " = " + tomlString(hash)
	lines := strings.SplitAfter(src, "\n")
	in, header := false, -1
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "[") {
			in = strings.Join(strings.Fields(t), "") == "[trusted]"
			if in {
				header = i
			}
			continue
		}
		if in && keyOf(t) == path {
			lines[i] = entry + "\n"
			return strings.Join(lines, "")
		}
	}
	if header >= 0 {
		lines = slices.Insert(lines, header+1, entry+"\n")
		return strings.Join(lines, "")
	}
	if src != "" && !strings.HasSuffix(src, "\n") {
		src += "\n"
	}
	if src != "" {
		src += "\n"
	}
	return src + "[trusted]\n" + entry + "\n"
}

// keyOf is the key a line "key = value" of a table assigns, unquoted; ""
// when it is not such a line.
func keyOf(line string) string {
	k, _, ok := strings.Cut(line, "=")
	if !ok {
		return ""
	}
	var m map[string]any
	if _, err := toml.Decode(strings.TrimSpace(k)+" = 0", &m); err != nil || len(m) != 1 {
		return ""
	}
	for key := range m {
		return key
	}
	return ""
}
