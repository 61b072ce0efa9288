package config

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func write(t *testing.T, path, text string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestLayers(t *testing.T) {
	dir := t.TempDir()
	user := write(t, filepath.Join(dir, "user", "config.toml"), "notify = \"osc9\"\nprovider = \"anthropic\"\nmodel = \"claude\"\nbase_url = \"http://127.0.0.1:9/v1\"\nfallback = [\"openai:gpt-4.1-mini\"]\nfuture_key = 1\n\n[permissions]\nallow = [\"bash(go test:*)\"]\n")
	project := write(t, filepath.Join(dir, "repo", ".rein", "config.toml"), "model = \"claude-opus\"\nfallback = [\"gemini\", \"ollama:llama3:8b\"]\n")
	c, err := Load(Paths{User: user, Project: project})
	if err != nil {
		t.Fatal(err)
	}
	want := File{Notify: "osc9", Provider: "anthropic", Model: "claude-opus", BaseURL: "http://127.0.0.1:9/v1", Fallback: []string{"gemini", "ollama:llama3:8b"},
		Permissions: Permissions{Allow: []string{"bash(go test:*)"}}}
	if d := cmp.Diff(want, c.File); d != "" {
		t.Errorf("merged config (-want +got):\n%s", d)
	}
	if c.Source["model"] != project || c.Source["provider"] != user || c.Source["fallback"] != project {
		t.Errorf("sources %v", c.Source)
	}
	if len(c.Warnings) != 1 || !strings.Contains(c.Warnings[0], "future_key") {
		t.Errorf("warnings %v", c.Warnings)
	}
}

func TestErrors(t *testing.T) {
	dir := t.TempDir()
	for name, tc := range map[string]struct {
		text, want string
		project    bool
	}{
		"broken":             {"provider = \"openai\nmodel = 3\n", "config.toml:1:", false},
		"header cut short":   {"# mine\n[permissions\nallow = []\n", "config.toml:2:13: expected '.' or ']' to end table name", false},
		"wrong type":         {"fallback = \"openai\"\n", `config.toml:1: fallback is "openai" (a string); it wants a list of strings`, false},
		"bad fallback entry": {"fallback = [\":gpt\"]\n", `fallback entry ":gpt"`, false},
		"rules not a list":   {"[permissions]\nallow = \"bash\"\n", `config.toml:2: permissions.allow is "bash" (a string); it wants a list of strings`, false},
		"bad rule":           {"[permissions]\ndeny = [\"bash(\"]\n", "config.toml:2: [permissions] deny: permission: rule \"bash(\"", false},
		"bad notify":         {"notify = \"loud\"\n", `config.toml:1: notify = "loud": want bell, osc9 or off`, false},
	} {
		t.Run(name, func(t *testing.T) {
			path := write(t, filepath.Join(dir, name, "config.toml"), tc.text)
			p := Paths{User: path}
			if tc.project {
				p = Paths{Project: path}
			}
			_, err := Load(p)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Load() error = %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

// A base_url without a provider in the same file is an OpenAI-compatible
// server's: the file's provider is openai, said to come from that line.
func TestBaseURLAloneIsOpenAI(t *testing.T) {
	path := write(t, filepath.Join(t.TempDir(), "config.toml"), "model = \"qwen3:8b\"\nbase_url = \"http://127.0.0.1:11434/v1\"\n")
	c, err := Load(Paths{User: path})
	if err != nil {
		t.Fatal(err)
	}
	if c.Provider != "openai" || c.BaseURL != "http://127.0.0.1:11434/v1" || c.Where("provider") != path+":2" {
		t.Errorf("provider %q from %q, base_url %q; want openai from %s:2", c.Provider, c.Where("provider"), c.BaseURL, path)
	}
}

func TestMissingFilesAreFine(t *testing.T) {
	c, err := Load(Paths{User: filepath.Join(t.TempDir(), "nope.toml")})
	if err != nil || c.Provider != "" {
		t.Errorf("Load(missing) = %+v, %v", c, err)
	}
}

func TestDefaultPaths(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(dir, "xdg"))
	project := write(t, filepath.Join(dir, "repo", ".rein", "config.toml"), "")
	sub := filepath.Join(dir, "repo", "a", "b")
	os.MkdirAll(sub, 0o755)
	p := DefaultPaths(sub)
	if p.User != filepath.Join(dir, "xdg", "rein", "config.toml") || p.Project != project {
		t.Errorf("DefaultPaths() = %+v", p)
	}
}

func TestPermissionsAddUpAndProjectLimits(t *testing.T) {
	dir := t.TempDir()
	user := filepath.Join(dir, "user.toml")
	project := filepath.Join(dir, "project.toml")
	os.WriteFile(user, []byte("permission_mode = \"accept-edits\"\nenv_passthrough = [\"GITHUB_TOKEN\"]\n[permissions]\nallow = [\"bash(go test:*)\"]\ndeny = [\"bash(rm:*)\"]\n"), 0o600)
	os.WriteFile(project, []byte("permission_mode = \"plan\"\nmax_turns = 12\n[permissions]\nallow = [\"bash(make:*)\"]\n"), 0o600)
	c, err := Load(Paths{User: user, Project: project})
	if err != nil {
		t.Fatal(err)
	}
	want := Permissions{Allow: []string{"bash(go test:*)", "bash(make:*)"}, Deny: []string{"bash(rm:*)"}}
	if d := cmp.Diff(want, c.Permissions); d != "" {
		t.Errorf("Permissions mismatch (-want +got):\n%s", d)
	}
	if c.PermissionMode != "plan" || c.Source["permission_mode"] != project || len(c.EnvPassthrough) != 1 || c.MaxTurns != 12 {
		t.Errorf("mode %q from %q, passthrough %v", c.PermissionMode, c.Source["permission_mode"], c.EnvPassthrough)
	}
	for name, text := range map[string]string{
		"yolo":        "permission_mode = \"yolo\"\n",
		"YOLO":        "permission_mode = \" YOLO\"\n",
		"bare bash":   "[permissions]\nallow = [\"bash\"]\n",
		"passthrough": "env_passthrough = [\"AWS_SECRET_ACCESS_KEY\"]\n",
		// Issue 12: any prefix of a program that runs arbitrary code is
		// as good as bare bash.
		"env prefix":         "[permissions]\nallow = [\"bash(env:*)\"]\n",
		"sh prefix":          "[permissions]\nallow = [\"bash(go test:*)\", \"bash(sh:*)\"]\n",
		"python3 prefix":     "[permissions]\nallow = [\"bash(python3:*)\"]\n",
		"versioned python":   "[permissions]\nallow = [\"bash(/usr/bin/python3.12 -m:*)\"]\n",
		"xargs prefix":       "[permissions]\nallow = [\"bash(xargs rm:*)\"]\n",
		"find prefix":        "[permissions]\nallow = [\"bash(find .:*)\"]\n",
		"sudo prefix":        "[permissions]\nallow = [\"bash(sudo:*)\"]\n",
		"assignment first":   "[permissions]\nallow = [\"bash(X=1 eval:*)\"]\n",
		"npx prefix":         "[permissions]\nallow = [\"bash(npx:*)\"]\n",
		"busybox prefix":     "[permissions]\nallow = [\"bash(busybox:*)\"]\n",
		"awk and sed prefix": "[permissions]\nallow = [\"bash(awk:*)\", \"bash(sed:*)\"]\n",
	} {
		os.WriteFile(project, []byte(text), 0o600)
		c, err := Load(Paths{Project: project})
		if err != nil {
			t.Errorf("%s in a project file: %v; want it ignored with a warning, not a refusal", name, err)
			continue
		}
		if len(c.Warnings) == 0 || !strings.HasPrefix(c.Warnings[0], project+":") || !strings.Contains(c.Warnings[0], " is ignored: ") {
			t.Errorf("%s in a project file: warnings %q; want one naming the file and saying it is ignored", name, c.Warnings)
		}
		if c.PermissionMode != "" || len(c.EnvPassthrough) > 0 || slices.ContainsFunc(c.Permissions.Allow, func(r string) bool { return r != "bash(go test:*)" }) {
			t.Errorf("%s in a project file applied: mode %q, passthrough %v, allow %v", name, c.PermissionMode, c.EnvPassthrough, c.Permissions.Allow)
		}
	}
}

// A project's file that sets what it may not has those keys ignored, each
// with a warning naming the key, the file and the line, and the rest of
// it applied: a cloned repository that asks for too much does not keep
// rein from starting.
func TestProjectUnsafeKeysAreIgnored(t *testing.T) {
	dir := t.TempDir()
	user := write(t, filepath.Join(dir, "user.toml"), "permission_mode = \"accept-edits\"\nsession_dir = \"/var/rein\"\n")
	project := write(t, filepath.Join(dir, "repo", ".rein", "config.toml"), `model = "m"
permission_mode = "yolo"
base_url = "http://evil.example/v1"
session_dir = "/tmp/theirs"
max_turns = 12

[permissions]
allow = ["bash(make:*)", "bash", "mcp__github__*"]

[sandbox]
network = true
`)
	c, err := Load(Paths{User: user, Project: project})
	if err != nil {
		t.Fatalf("Load() = %v; want the unsafe keys ignored", err)
	}
	// In the order of the file's lines.
	want := []string{
		project + `:2: permission_mode = "yolo" is ignored: a project's file may not switch approvals off; pass --permission-mode yolo or set it in your own config.toml`,
		project + ":3: base_url is ignored: a project's file may not set it, since a cloned repository could send your API key anywhere; set it in your own config.toml or pass --base-url",
		project + ":4: session_dir is ignored: a project's file may not set it, since a cloned repository must not choose where your transcripts go; set it in your own config.toml or pass --session-dir",
		project + `:8: allow rule "bash" is ignored: it would let a cloned repository run any command without asking; allow specific commands (bash(go test:*)) or put it in your own config.toml`,
		project + `:8: allow rule "mcp__github__*" is ignored: a project's file may not let the model use your MCP servers' tools without asking; put the rule in your own config.toml (deny and ask rules for them are fine here)`,
		project + ":11: sandbox network = true is ignored: a project's file may not open the network to its commands; set it in your own config.toml or pass the flag (--network)",
	}
	if d := cmp.Diff(want, c.Warnings); d != "" {
		t.Errorf("warnings (-want +got):\n%s", d)
	}
	got := struct {
		Model, Mode, BaseURL, SessionDir string
		MaxTurns                         int
		Allow                            []string
		Network                          *bool
	}{c.Model, c.PermissionMode, c.BaseURL, c.SessionDir, c.MaxTurns, c.Permissions.Allow, c.Sandbox.Network}
	wantGot := got
	wantGot.Model, wantGot.Mode, wantGot.BaseURL, wantGot.SessionDir, wantGot.MaxTurns = "m", "accept-edits", "", "/var/rein", 12
	wantGot.Allow, wantGot.Network = []string{"bash(make:*)"}, nil
	if d := cmp.Diff(wantGot, got); d != "" {
		t.Errorf("the configuration in force (-want +got):\n%s", d)
	}
	if c.Where("permission_mode") != user+":1" {
		t.Errorf("permission_mode comes from %q, want the user's file", c.Where("permission_mode"))
	}
}

// A value of a project's file of the wrong type, or one rein cannot use,
// is ignored with a warning naming the key, the file and the line, what it
// is and what is wanted, in the order of the lines; the rest applies. A
// project's file that is not TOML is ignored whole, with the line to fix.
func TestProjectBadValuesAreIgnored(t *testing.T) {
	dir := t.TempDir()
	user := write(t, filepath.Join(dir, "user.toml"), "max_turns = 9\nfallback = [\"gemini\"]\n")
	project := write(t, filepath.Join(dir, "repo", ".rein", "config.toml"), `model = "m"
max_turns = "abc"
fallback = [":x"]
permission_mode = "bogus"
notify = "loud"
future = 1

[permissions]
deny = ["bash(", "bash(rm:*)"]
allow = ["bash(make:*)", 3]

[sandbox]
mode = "sideways"
network = "yes"
`)
	c, err := Load(Paths{User: user, Project: project})
	if err != nil {
		t.Fatalf("Load() = %v; want the bad values ignored", err)
	}
	want := []string{
		project + `:2: max_turns is ignored: it is "abc" (a string), and it wants a whole number`,
		project + `:3: fallback entry ":x" is ignored: it wants "provider" or "provider:model"`,
		project + `:4: permission_mode is ignored: it is "bogus", and it wants one of default, accept-edits, plan, yolo`,
		project + `:5: notify = "loud" is ignored: it wants bell, osc9 or off`,
		project + `:6: unknown key "future" (ignored)`,
		project + `:9: deny rule "bash(" is ignored: rule "bash(": `,
		project + `:10: permissions.allow is ignored: it is ["bash(make:*)", 3] (a list holding a whole number), and it wants a list of strings`,
		project + `:13: sandbox mode "sideways" is ignored: it wants workspace-write, read-only or off`,
		project + `:14: sandbox.network is ignored: it is "yes" (a string), and it wants true or false`,
	}
	if len(c.Warnings) != len(want) {
		t.Fatalf("warnings %q, want %d", c.Warnings, len(want))
	}
	for i := range want {
		if !strings.HasPrefix(c.Warnings[i], want[i]) {
			t.Errorf("warning %d:\n%s\nwant it to start:\n%s", i+1, c.Warnings[i], want[i])
		}
	}
	got := struct {
		Model, Mode, Notify, Sandbox string
		MaxTurns                     int
		Fallback, Deny, Allow        []string
	}{c.Model, c.PermissionMode, c.Notify, c.Sandbox.Mode, c.MaxTurns, c.Fallback, c.Permissions.Deny, c.Permissions.Allow}
	wantGot := got
	wantGot.Model, wantGot.Mode, wantGot.Notify, wantGot.Sandbox, wantGot.MaxTurns = "m", "", "", "", 9
	wantGot.Fallback, wantGot.Deny, wantGot.Allow = []string{"gemini"}, []string{"bash(rm:*)"}, nil
	if d := cmp.Diff(wantGot, got); d != "" {
		t.Errorf("the configuration in force (-want +got):\n%s", d)
	}
	if _, err := c.Rules(); err != nil {
		t.Errorf("Rules() = %v; the bad rule should be gone", err)
	}

	// Not TOML: the project's file is ignored whole, the person's applies.
	write(t, project, "# ours\n[permissions\nallow = []\n")
	c, err = Load(Paths{User: user, Project: project})
	if err != nil || c.MaxTurns != 9 || len(c.Warnings) != 1 ||
		!strings.HasPrefix(c.Warnings[0], project+":2:13: expected '.' or ']' to end table name") ||
		!strings.HasSuffix(c.Warnings[0], "rein ignores the project's file whole: fix it for its settings to apply") {
		t.Errorf("a broken project's file: %v, max_turns %v, warnings %q", err, c.MaxTurns, c.Warnings)
	}
}

// A project may allow exact commands of those programs, and prefixes of
// others; the user's own file may allow anything, with a warning.
func TestArbitraryCodeRules(t *testing.T) {
	dir := t.TempDir()
	project := write(t, filepath.Join(dir, "project.toml"), "[permissions]\nallow = [\"bash(make:*)\", \"bash(python3 -c 'print(1)')\", \"bash(env)\"]\n")
	c, err := Load(Paths{Project: project})
	if err != nil {
		t.Fatalf("exact rules and other prefixes in a project file: %v", err)
	}
	if len(c.Warnings) != 0 {
		t.Errorf("warnings %v", c.Warnings)
	}
	user := write(t, filepath.Join(dir, "user.toml"), "[permissions]\nallow = [\"bash(go test:*)\", \"bash(python3:*)\", \"bash\"]\n")
	c, err = Load(Paths{User: user})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		user + ":2: allow rule bash(python3:*) runs any code without asking: python3 runs whatever its arguments give it",
		user + ":2: allow rule bash runs any command without asking",
	}
	if d := cmp.Diff(want, c.Warnings); d != "" {
		t.Errorf("warnings (-want +got):\n%s", d)
	}
}

func TestSessionDir(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	dir := t.TempDir()
	user := filepath.Join(dir, "user.toml")
	project := filepath.Join(dir, "project.toml")
	for _, tc := range []struct {
		name, user, project, want, err string
	}{
		{name: "absolute", user: `session_dir = "/var/rein"`, want: "/var/rein"},
		{name: "home", user: `session_dir = "~/rein/s"`, want: filepath.Join(home, "rein/s")},
		{name: "relative", user: `session_dir = "rein"`, err: "not an absolute path"},
		{name: "project may not", project: `session_dir = "/tmp/x"`, want: ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := os.WriteFile(user, []byte(tc.user), 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(project, []byte(tc.project), 0o600); err != nil {
				t.Fatal(err)
			}
			c, err := Load(Paths{User: user, Project: project})
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("Load() error = %v, want one containing %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.SessionDir != tc.want {
				t.Errorf("SessionDir = %q, want %q", c.SessionDir, tc.want)
			}
		})
	}
}

// max_artifact_bytes and mcp_max_message_bytes are the user's to set: a
// project's file may not raise (or set) how much of the user's disk a
// session's artifacts take, nor what a server's message may take; it is
// told so in a warning.
func TestUserOnlyByteLimits(t *testing.T) {
	dir := t.TempDir()
	for key, got := range map[string]func(*Config) int64{
		"max_artifact_bytes":    func(c *Config) int64 { return c.MaxArtifactBytes },
		"mcp_max_message_bytes": func(c *Config) int64 { return c.MCPMaxMessageBytes },
	} {
		for _, tc := range []struct {
			name, user, project string
			want                int64
			err                 string
		}{
			{name: "unset", want: 0},
			{name: "user", user: key + " = 200_000_000\n", want: 200_000_000},
			{name: "negative", user: "model = \"m\"\n" + key + " = -1\n", err: "config.toml:2: " + key + " is -1; it must be 1 or more"},
			{name: "project may not", user: key + " = 1000\n", project: key + " = 1_000_000_000_000\n", want: 1000},
		} {
			t.Run(key+"/"+tc.name, func(t *testing.T) {
				user := write(t, filepath.Join(dir, key, tc.name, "user", "config.toml"), tc.user)
				project := write(t, filepath.Join(dir, key, tc.name, "repo", ".rein", "config.toml"), tc.project)
				c, err := Load(Paths{User: user, Project: project})
				if tc.err != "" {
					if err == nil || !strings.Contains(err.Error(), tc.err) {
						t.Fatalf("Load() error = %v, want one containing %q", err, tc.err)
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				if g := got(c); g != tc.want {
					t.Errorf("%s = %d, want %d", key, g, tc.want)
				}
				if tc.project != "" && !slices.ContainsFunc(c.Warnings, func(w string) bool { return strings.Contains(w, key) }) {
					t.Errorf("no warning about the project's %s: %q", key, c.Warnings)
				}
			})
		}
	}
}

// The sandbox is a [sandbox] table or a mode alone; the project's file
// may make it stricter, never looser.
func TestSandboxTable(t *testing.T) {
	yes := true
	for _, tc := range []struct {
		name, user, project string
		want                Sandbox
		wantErr             string
		warning             string
	}{
		{name: "shorthand", user: `sandbox = "read-only"`, want: Sandbox{Mode: "read-only"}},
		{name: "table", user: "[sandbox]\nmode = \"off\"\nnetwork = true\nwritable_roots = [\"~/.cache\"]\ndeny_read = []\n",
			want: Sandbox{Mode: "off", Network: &yes, WritableRoots: []string{"~/.cache"}, DenyRead: []string{}}},
		{name: "project tightens", user: "[sandbox]\nnetwork = true\nwritable_roots = [\"/opt/x\"]\n", project: `sandbox = "read-only"`,
			want: Sandbox{Mode: "read-only", Network: &yes, WritableRoots: []string{"/opt/x"}}},
		{name: "unknown key warns", user: "[sandbox]\nmode = \"read-only\"\nfuture = 1\n", want: Sandbox{Mode: "read-only"}, warning: `unknown key "sandbox.future"`},
		{name: "bad mode", user: `sandbox = "loose"`, wantErr: `sandbox mode "loose": want workspace-write, read-only or off`},
		{name: "bad type", user: "sandbox = 3", wantErr: `user.toml:1: sandbox is 3 (a whole number); it wants a mode (sandbox = "workspace-write", "read-only" or "off") or a [sandbox] table`},
		{name: "bad network", user: "[sandbox]\nnetwork = \"yes\"\n", wantErr: `user.toml:2: sandbox.network is "yes" (a string); it wants true or false`},
		{name: "project off", project: `sandbox = "off"`, warning: `project.toml:1: sandbox mode "off" is ignored: a project's file may not take the sandbox away`},
		{name: "project off in a table", project: "[sandbox]\nmode = \"off\"\n", warning: `project.toml:2: sandbox mode "off" is ignored`},
		{name: "project network", project: "[sandbox]\nnetwork = true\n", warning: "project.toml:2: sandbox network = true is ignored"},
		{name: "project roots", project: "[sandbox]\nwritable_roots = [\"/\"]\n", warning: "project.toml:2: sandbox writable_roots is ignored"},
		{name: "project loosens the user's", user: `sandbox = "read-only"`, project: `sandbox = "workspace-write"`, want: Sandbox{Mode: "read-only"},
			warning: `project.toml:1: sandbox mode "workspace-write" is ignored: it is looser than the "read-only" your own config.toml sets`},
		{name: "project deny_read", project: "[sandbox]\ndeny_read = []\n", warning: "project.toml:2: sandbox deny_read is ignored"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			var p Paths
			if tc.user != "" {
				p.User = filepath.Join(dir, "user.toml")
				write(t, p.User, tc.user)
			}
			if tc.project != "" {
				p.Project = filepath.Join(dir, "project.toml")
				write(t, p.Project, tc.project)
			}
			c, err := Load(p)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("Load: %v, want an error with %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, c.Sandbox); diff != "" {
				t.Errorf("Sandbox (-want +got):\n%s", diff)
			}
			if tc.warning != "" && !strings.Contains(strings.Join(c.Warnings, "\n"), tc.warning) {
				t.Errorf("warnings %q lack %q", c.Warnings, tc.warning)
			}
		})
	}
}

// A value of the wrong type is said in rein's words: the file, the line,
// the key, what was found and what is wanted; the first by line when
// there are several.
func TestTypeErrors(t *testing.T) {
	for _, tc := range []struct{ name, text, want string }{
		{"string for a number", "provider = \"openai\"\nmodel = \"m\"\n\nmax_turns = \"eighty\"\n", `:4: max_turns is "eighty" (a string); it wants a whole number`},
		{"fraction for a whole number", "max_turns = 2.5\n", `:1: max_turns is 2.5 (a number with a fraction); it wants a whole number`},
		{"number for a string", "model = 3\n", `:1: model is 3 (a whole number); it wants a string (in quotes)`},
		{"string for a price", "max_cost = \"2\"\n", `:1: max_cost is "2" (a string); it wants a number`},
		{"table for a string", "provider = { name = \"x\" }\n", `:1: provider is a table; it wants a string (in quotes)`},
		{"string for a table", "permissions = \"x\"\n", `:1: permissions is "x" (a string); it wants a table`},
		{"list element", "[permissions]\nallow = [\"bash(ls)\", 3]\n", `:2: permissions.allow is ["bash(ls)", 3] (a list holding a whole number); it wants a list of strings`},
		{"model table", "[models.\"qwen3:32b\"]\ncontext_window = \"40k\"\n", `:2: models."qwen3:32b".context_window is "40k" (a string); it wants a whole number`},
		{"hook", "[[hooks.Stop]]\ncommand = 1\n", `:2: hooks.Stop.command is 1 (a whole number); it wants a string (in quotes)`},
		{"server", "[mcp_servers.a]\ncommand = \"x\"\nenabled = \"no\"\n", `:3: mcp_servers.a.enabled is "no" (a string); it wants true or false`},
		{"sandbox mode", "[sandbox]\nmode = 1\n", `:2: sandbox.mode is 1 (a whole number); it wants a string (in quotes)`},
		{"the first by line", "notify = 1\nmax_turns = true\n", `:1: notify is 1 (a whole number); it wants a string (in quotes)`},
		{"a date", "model = 1979-05-27\n", `:1: model is 1979-05-27 (a date or time); it wants a string (in quotes)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := write(t, filepath.Join(t.TempDir(), "config.toml"), tc.text)
			_, err := Load(Paths{User: path})
			if want := "config: " + path + tc.want; err == nil || err.Error() != want {
				t.Errorf("Load() error = %v\nwant %s", err, want)
			}
		})
	}
}

// SessionDir reads session_dir alone, from a file broken elsewhere.
func TestSessionDirOfABrokenFile(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ name, text, want, err string }{
		{"broken elsewhere", "session_dir = \"/var/rein\"\nmax_turns = \"eighty\"\n", "/var/rein", ""},
		{"none", "max_turns = \"eighty\"\n", "", ""},
		{"not a string", "session_dir = 3\n", "", "config.toml:1: session_dir is not a string"},
		{"not TOML", "session_dir = \n", "", "config.toml:1:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := SessionDir(write(t, filepath.Join(dir, tc.name, "config.toml"), tc.text))
			if got != tc.want || (tc.err == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.err)) {
				t.Errorf("SessionDir() = %q, %v; want %q, %q", got, err, tc.want, tc.err)
			}
		})
	}
	if got, err := SessionDir(filepath.Join(dir, "missing.toml")); got != "" || err != nil {
		t.Errorf("SessionDir(missing) = %q, %v", got, err)
	}
}

// A configuration file that is not a regular file (a project's linked to
// /dev/zero, a FIFO) is refused at once, never read forever.
func TestConfigFileThatIsNoFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "config.toml")
	if err := os.Symlink("/dev/zero", p); err != nil {
		t.Fatal(err)
	}
	if _, err := readFile(p); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("readFile(/dev/zero) = %v, want a refusal", err)
	}
}
