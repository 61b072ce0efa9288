package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The exit-code table of the README, command by command: bad usage and bad
// configuration of the person's are 2 everywhere (the message names the
// flag, or the file and line), but a broken configuration of the person's
// only warns the commands that read sessions (and the demo, which ignores
// it), and a project's broken file only warns (a cloned repository never
// keeps rein from starting); a run that
// failed is 1; an interrupt is 130 (143 on SIGTERM, in
// TestSIGTERMExits143; 130 in TestInterruptedExec).
func TestExitCodes(t *testing.T) {
	c, id, _ := recorded(t)
	script := writeScript(t, `{"turns":[{"steps":[{"text":"Done."},{"finish":"stop"}]}]}`)
	failing := writeScript(t, `{"turns":[{"steps":[{"error":{"kind":"bad_request","message":"the request is wrong"}}]}]}`)

	// A user configuration file that is not TOML, and one whose value is
	// invalid; a project file that is not TOML.
	brokenCfg, invalidCfg := t.TempDir(), t.TempDir()
	write := func(path, text string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(brokenCfg, "rein", "config.toml"), "model = \"x\"\nmax_turns = = 3\n")
	write(filepath.Join(invalidCfg, "rein", "config.toml"), "max_turns = -4\n")
	// Values no parser rejects, that rein does: each error names the file
	// and the line.
	values := map[string]string{}
	for name, text := range map[string]string{
		"mode":     "model = \"x\"\npermission_mode = \"sideways\"\n",
		"rule":     "[permissions]\nallow = [\"bash(go test:*)\"]\ndeny = [\"bash(\"]\n",
		"provider": "\nprovider = \"nope\"\n",
		"fallback": "\n\nfallback = [\"nope:m\"]\n",
		"base_url": "provider = \"openai\"\nbase_url = \"ftp://x\"\n",
	} {
		values[name] = t.TempDir()
		write(filepath.Join(values[name], "rein", "config.toml"), text)
	}
	brokenProject := t.TempDir()
	write(filepath.Join(brokenProject, ".rein", "config.toml"), "[permissions\nallow = 1\n")

	scripted := []string{"--provider", "scripted", "--script", script}
	for _, tc := range []struct {
		name string
		dir  string // the working directory; the crash session's workspace if empty
		cfg  string // XDG_CONFIG_HOME; the crash session's if empty
		args []string
		code int
		says string // what stderr must hold
	}{
		{"exec ok", "", "", append([]string{"exec", "hi"}, scripted...), 0, ""},
		{"exec failed run", "", "", []string{"exec", "--provider", "scripted", "--script", failing, "hi"}, 1, "the request is wrong"},
		{"exec unknown flag", "", "", []string{"exec", "--bogus", "hi"}, 2, "--bogus"},
		{"exec bad mode", "", "", append([]string{"exec", "--permission-mode", "sideways", "hi"}, scripted...), 2, "sideways"},
		{"exec unknown provider", "", "", []string{"exec", "--provider", "nope", "hi"}, 2, "nope"},
		{"exec broken config", "", brokenCfg, append([]string{"exec", "hi"}, scripted...), 2, "config.toml:2"},
		{"exec invalid config", "", invalidCfg, append([]string{"exec", "hi"}, scripted...), 2, "max_turns"},
		{"exec invalid mode in config", "", values["mode"], append([]string{"exec", "hi"}, scripted...), 2, "config.toml:2: permission_mode"},
		{"exec invalid rule in config", "", values["rule"], append([]string{"exec", "hi"}, scripted...), 2, "config.toml:3: [permissions] deny"},
		{"exec unknown provider in config", "", values["provider"], []string{"exec", "hi"}, 2, "config.toml:2: unknown provider \"nope\""},
		{"exec unknown fallback in config", "", values["fallback"], []string{"exec", "--provider", "openai", "--base-url", "http://127.0.0.1:1/v1", "hi"}, 2, "config.toml:3: fallback \"nope:m\""},
		{"exec bad base_url in config", "", values["base_url"], []string{"exec", "hi"}, 2, "config.toml:2: base URL"},
		{"exec broken project config", brokenProject, "", append([]string{"exec", "hi"}, scripted...), 0,
			filepath.Join(".rein", "config.toml") + ":1:13: expected '.' or ']' to end table name, but got '\\n' instead; rein ignores the project's file whole"},
		{"interactive unknown flag", "", "", []string{"--bogus"}, 2, "--bogus"},
		{"interactive broken config", "", brokenCfg, scripted, 2, "config.toml:2"},
		{"demo extra argument", "", "", []string{"demo", "extra"}, 2, "extra"},
		{"demo broken config", "", brokenCfg, []string{"demo"}, 0, "config.toml:2:13: expected value"},
		{"sessions unknown flag", "", "", []string{"sessions", "--bogus"}, 2, "--bogus"},
		{"sessions broken config", "", brokenCfg, []string{"sessions"}, 0, "config.toml:2:13: expected value"},
		{"resume without id", "", "", []string{"resume"}, 2, "--last"},
		{"resume unknown id", "", "", append([]string{"resume", "ses_nope", "go on"}, scripted...), 2, "ses_nope"},
		{"resume broken config", "", brokenCfg, append([]string{"resume", id, "go on"}, scripted...), 2, "config.toml:2"},
		{"rewind unknown id", "", "", []string{"rewind", "ses_nope"}, 2, "ses_nope"},
		{"rewind two scopes", "", "", []string{"rewind", id, "--code", "--both"}, 2, "give one of --code"},
		{"rewind no such point", "", "", []string{"rewind", id, "--to", "99999"}, 1, "no message at seq 99999"},
		{"fork without id", "", "", []string{"fork"}, 2, "arg"},
		{"fork unknown id", "", "", []string{"fork", "ses_nope"}, 2, "ses_nope"},
		{"fork past the end", "", "", []string{"fork", id, "--at", "99999"}, 2, "the log ends at seq"},
		{"fork broken config", "", brokenCfg, []string{"fork", id}, 0, "config.toml:2:13: expected value"},
		{"replay unknown id", "", "", []string{"replay", "ses_nope"}, 2, "ses_nope"},
		{"replay broken config", "", brokenCfg, []string{"replay", id}, 0, "config.toml:2:13: expected value"},
		{"log unknown id", "", "", []string{"log", "ses_nope"}, 2, "ses_nope"},
		{"log bad glob", "", "", []string{"log", id, "--type", "[tool"}, 2, "[tool"},
		{"log broken config", "", brokenCfg, []string{"log", id}, 0, "config.toml:2:13: expected value"},
		{"why without path", "", "", []string{"why"}, 2, "arg"},
		{"why broken config", "", brokenCfg, []string{"why", "c.txt"}, 0, "config.toml:2:13: expected value"},
		{"version extra argument", "", "", []string{"version", "extra"}, 2, "extra"},
		{"debug normalize without api", "", "", []string{"debug", "normalize", "-"}, 2, "--api"},
		{"debug normalize missing file", "", "", []string{"debug", "normalize", "--api", "chat", "/nonexistent/stream.sse"}, 2, "/nonexistent/stream.sse"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, cfg := c.ws, c.cfg
			if tc.dir != "" {
				dir = tc.dir
			}
			if tc.cfg != "" {
				cfg = tc.cfg
			}
			r := reinIn(t, dir, []string{"XDG_STATE_HOME=" + c.state, "XDG_CONFIG_HOME=" + cfg}, tc.args...)
			if r.code != tc.code || !strings.Contains(r.stderr, tc.says) {
				t.Errorf("rein %s: exit %d, want %d with %q on stderr; stderr:\n%s", strings.Join(tc.args, " "), r.code, tc.code, tc.says, r.stderr)
			}
		})
	}
}
