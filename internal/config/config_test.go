package config

import (
	"os"
	"path/filepath"
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
		"wrong type":         {"fallback = \"openai\"\n", "config.toml", false},
		"project base_url":   {"base_url = \"http://evil.example/v1\"\n", "base_url is not allowed in a project's file", true},
		"bad fallback entry": {"fallback = [\":gpt\"]\n", `fallback entry ":gpt"`, false},
		"base_url alone":     {"base_url = \"http://127.0.0.1:1/v1\"\n", "base_url needs provider", false},
		"rules not a list":   {"[permissions]\nallow = \"bash\"\n", "config.toml", false},
		"bad rule":           {"[permissions]\ndeny = [\"bash(\"]\n", "config.toml:2: [permissions] deny: permission: rule \"bash(\"", true},
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
		if _, err := Load(Paths{Project: project}); err == nil || !strings.Contains(err.Error(), "not allowed in a project's file") {
			t.Errorf("%s in a project file: error %v", name, err)
		}
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
		{name: "project may not", project: `session_dir = "/tmp/x"`, err: "not allowed in a project's file"},
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

// max_artifact_bytes is the user's to set: a project's file may not raise
// (or set) how much of the user's disk a session's artifacts take.
func TestMaxArtifactBytes(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, user, project string
		want                int64
		err                 string
	}{
		{name: "unset", want: 0},
		{name: "user", user: "max_artifact_bytes = 200_000_000\n", want: 200_000_000},
		{name: "negative", user: "model = \"m\"\nmax_artifact_bytes = -1\n", err: "config.toml:2: max_artifact_bytes is -1; it must be 1 or more"},
		{name: "project may not", user: "max_artifact_bytes = 1000\n", project: "max_artifact_bytes = 1_000_000_000_000\n",
			err: "max_artifact_bytes is not allowed in a project's file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			user := write(t, filepath.Join(dir, tc.name, "user", "config.toml"), tc.user)
			project := write(t, filepath.Join(dir, tc.name, "repo", ".rein", "config.toml"), tc.project)
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
			if c.MaxArtifactBytes != tc.want {
				t.Errorf("MaxArtifactBytes = %d, want %d", c.MaxArtifactBytes, tc.want)
			}
		})
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
		{name: "bad type", user: "sandbox = 3", wantErr: "want a mode"},
		{name: "bad network", user: "[sandbox]\nnetwork = \"yes\"\n", wantErr: "sandbox.network: want true or false"},
		{name: "project off", project: `sandbox = "off"`, wantErr: `sandbox mode "off" is not allowed in a project's file`},
		{name: "project network", project: "[sandbox]\nnetwork = true\n", wantErr: "network = true is not allowed in a project's file"},
		{name: "project roots", project: "[sandbox]\nwritable_roots = [\"/\"]\n", wantErr: "writable_roots is not allowed in a project's file"},
		{name: "project loosens the user's", user: `sandbox = "read-only"`, project: `sandbox = "workspace-write"`,
			wantErr: `sandbox mode "workspace-write" is looser than the "read-only" your own config.toml sets`},
		{name: "project deny_read", project: "[sandbox]\ndeny_read = []\n", wantErr: "deny_read is not allowed in a project's file"},
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
