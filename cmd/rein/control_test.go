package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rein-agent/rein/internal/cli"
	"github.com/rein-agent/rein/internal/config"
	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/kernel"
)

// controlSpec is a scripted session in a fresh workspace with an
// AGENTS.md and a project configuration, and a user configuration of its
// own, which describes model "small".
func controlSpec(t *testing.T) cli.Spec {
	t.Helper()
	home := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, "config"))
	t.Setenv("XDG_STATE_HOME", filepath.Join(home, "state"))
	t.Setenv("HOME", home)
	user := filepath.Join(home, "config", "rein", "config.toml")
	if err := os.MkdirAll(filepath.Dir(user), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(user, []byte("[models.small]\ncontext_window = 8000\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ws := t.TempDir()
	files := map[string]string{
		"AGENTS.md":         "Run go test before you say done.",
		".rein/config.toml": "max_turns = 10\n",
		"script.json":       `{"turns":[{"steps":[{"text":"one"},{"finish":"stop"}]},{"steps":[{"text":"two"},{"finish":"stop"}]}]}`,
	}
	for name, text := range files {
		p := filepath.Join(ws, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return cli.Spec{Provider: "scripted", Script: filepath.Join(ws, "script.json"), Cwd: ws, SessionDir: filepath.Join(home, "sessions"),
		Sandbox: "off"}
}

func TestAboutAndSwitchOfAScriptedSession(t *testing.T) {
	spec := controlSpec(t)
	cs, err := openSession(t.Context(), spec)
	if err != nil {
		t.Fatal(err)
	}
	k := cs.Runtime.(*kernel.Kernel)
	want := []cli.Fact{
		{Key: "provider", Value: "scripted"},
		{Key: "endpoint", Value: "none (a script plays the model)"},
		{Key: "model", Value: "scripted (window unknown)"},
		{Key: "configuration", Value: filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "rein", "config.toml") + ", " +
			filepath.Join(spec.Cwd, ".rein", "config.toml")},
		{Key: "sandbox", Value: strings.TrimPrefix(cs.Sandbox, "sandbox: ")},
		{Key: "instructions", Value: filepath.Join(spec.Cwd, "AGENTS.md") + " (32 bytes)"},
	}
	if d := cmp.Diff(want, cs.About()); d != "" {
		t.Errorf("About mismatch (-want +got):\n%s", d)
	}
	// A file made during the session (an answer's rules, say) is seen by
	// the next /status.
	answers := filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "rein", "projects.toml")
	if err := os.WriteFile(answers, []byte("# answers\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	want[3].Value = filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "rein", "config.toml") + ", " + answers + ", " +
		filepath.Join(spec.Cwd, ".rein", "config.toml")
	if d := cmp.Diff(want, cs.About()); d != "" {
		t.Errorf("About after the answers file was made, mismatch (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"scripted", "small"}, k.Known()); d != "" {
		t.Errorf("Known() mismatch (-want +got):\n%s", d)
	}
	for _, bad := range []string{"openai:gpt-5", "anthropic", ""} {
		err := k.SwitchModel(t.Context(), bad)
		if err == nil {
			t.Errorf("SwitchModel(%q) = nil, want a refusal: a scripted session switches only to scripted", bad)
			continue
		}
		// /model shows the refusal as it is: no package's prefix.
		for _, prefix := range []string{"kernel:", "usage:", "catalog:", "config:"} {
			if strings.Contains(err.Error(), prefix) {
				t.Errorf("SwitchModel(%q) = %q, which carries %q", bad, err, prefix)
			}
		}
	}
	for range k.Send(t.Context(), kernel.Input{Text: "first"}) {
	}
	if err := k.SwitchModel(t.Context(), "small"); err != nil {
		t.Fatal(err)
	}
	for range k.Send(t.Context(), kernel.Input{Text: "second"}) {
	}
	var models []string
	for env, err := range k.Events() {
		if err != nil {
			t.Fatal(err)
		}
		if e, ok := env.Data.(*contract.ModelRequested); ok {
			models = append(models, e.Model)
		}
	}
	// The script goes on where it was: its second turn answers the second run.
	if d := cmp.Diff([]string{"scripted", "small"}, models); d != "" {
		t.Errorf("models asked mismatch (-want +got):\n%s", d)
	}
	if st := k.State(); st.Messages[len(st.Messages)-1].Text != "two" {
		t.Errorf("the second run's answer is %q, want the script's second turn", st.Messages[len(st.Messages)-1].Text)
	}
	if c := k.Current(); c.Model != "small" || c.Info == nil || c.Info.ContextWindow != 8000 {
		t.Errorf("Current() = %+v, want small with the configuration's window", c)
	}
	if err := cs.Close(); err != nil {
		t.Fatal(err)
	}

	// Resumed (rein resume --script FILE), the session goes on with the
	// model it switched to, and with the prompt it started with: an
	// AGENTS.md changed since is not in it, which /status says.
	if err := os.WriteFile(filepath.Join(spec.Cwd, "AGENTS.md"), []byte("Run make check instead."), 0o600); err != nil {
		t.Fatal(err)
	}
	spec.Session, spec.Provider = k.Session(), ""
	rs, err := resumeSession(t.Context(), spec)
	if err != nil {
		t.Fatal(err)
	}
	defer rs.Close()
	if c := rs.Runtime.(*kernel.Kernel).Current(); c.Provider != "scripted" || c.Model != "small" {
		t.Errorf("resumed with %s:%s, want scripted:small", c.Provider, c.Model)
	}
	wantFact := cli.Fact{Key: "instructions", Value: filepath.Join(spec.Cwd, "AGENTS.md") +
		" (not in this session's prompt, which keeps the instructions it started with)"}
	if facts := rs.About(); facts[len(facts)-1] != wantFact {
		got := facts[len(facts)-1]
		t.Errorf("the resumed session's instructions fact = %+v, want %+v", got, wantFact)
	}
}

func TestSplitSpec(t *testing.T) {
	for _, tc := range []struct{ spec, name, model string }{
		{"anthropic", "anthropic", ""},
		{"openai:gpt-5", "openai", "gpt-5"},
		{"llama3:8b", "current", "llama3:8b"},
		{" gpt-5 ", "current", "gpt-5"},
		{"openai:qwen3:8b", "openai", "qwen3:8b"},
	} {
		t.Run(tc.spec, func(t *testing.T) {
			name, model, err := splitSpec(tc.spec, "current")
			if err != nil || name != tc.name || model != tc.model {
				t.Errorf("splitSpec(%q) = %q, %q, %v; want %q, %q", tc.spec, name, model, err, tc.name, tc.model)
			}
		})
	}
}

// A real session's /model builds as --provider and --model would: the
// same provider keeps the endpoint it was given, another has its own, a
// provider without a key is refused; completion lists the catalogue's
// models of the providers with a key or configuration, and the
// configuration's models.
func TestSwitcherAndKnown(t *testing.T) {
	for _, v := range []string{"ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_BASE_URL"} {
		t.Setenv(v, "")
	}
	t.Setenv("ANTHROPIC_API_KEY", "sk-ant-test-key")
	cfg := &config.Config{File: config.File{Models: map[string]config.Model{"local-qwen": {ContextWindow: 32768}}}}
	w := &switching{spec: cli.Spec{Provider: "openai", Model: "gpt-x", BaseURL: "http://127.0.0.1:9/v1"}, cfg: cfg}
	primary, err := model(t.Context(), "openai", "gpt-x", "http://127.0.0.1:9/v1", cfg)
	if err != nil {
		t.Fatal(err)
	}
	sw := w.switcher(primary, func() kernel.Current { return kernel.Current{Provider: "openai", Model: "gpt-x"} })
	type got struct {
		Name, Model, BaseURL, Secret string
		Window                       int
	}
	for _, tc := range []struct {
		spec string
		want got
	}{
		{"local-qwen", got{"openai", "local-qwen", "http://127.0.0.1:9/v1", "", 32768}},
		{"anthropic:claude-sonnet-4-5", got{"anthropic", "claude-sonnet-4-5", "", "sk-ant-test-key", 0}},
	} {
		t.Run(tc.spec, func(t *testing.T) {
			m, err := sw(tc.spec)
			if err != nil {
				t.Fatal(err)
			}
			g := got{m.Name, m.Model, m.BaseURL, m.Secret, 0}
			if m.Info != nil && m.Info.Source == contract.InfoConfig {
				g.Window = m.Info.ContextWindow
			}
			if d := cmp.Diff(tc.want, g); d != "" {
				t.Errorf("Switch(%q) mismatch (-want +got):\n%s", tc.spec, d)
			}
		})
	}
	if _, err := sw("gemini"); err == nil || !strings.Contains(err.Error(), "GEMINI_API_KEY") {
		t.Errorf("Switch(gemini) without a key = %v, want an error naming the key", err)
	}
	known := w.known(primary, nil)
	has := func(prefix string) bool {
		return slices.ContainsFunc(known, func(n string) bool { return strings.HasPrefix(n, prefix) })
	}
	// The primary is the person's own OpenAI-compatible server, which
	// serves none of OpenAI's catalogue: /model asks it for its list.
	if !slices.Contains(known, "local-qwen") || has("openai:") || !has("anthropic:") || has("gemini:") || !slices.IsSorted(known) {
		t.Errorf("Known = %v, want sorted: local-qwen and anthropic's models, no OpenAI's (the primary is a local server), no gemini's", known)
	}
}

// /status lists every file of instructions, one a line under one key,
// with its bytes and what was cut.
func TestInstructionFacts(t *testing.T) {
	files := []kernel.InstructionFile{
		{Path: "/home/ada/.config/rein/AGENTS.md", Text: "Be brief.", Own: true},
		{Path: "/src/AGENTS.md", Text: strings.Repeat("x", 1234), Cut: 40000},
		{Path: "/src/cmd/CLAUDE.md", Cut: 12},
	}
	system := kernel.SystemPrompt(kernel.Environment{Instructions: files})
	want := []cli.Fact{
		{Key: "instructions", Value: "/home/ada/.config/rein/AGENTS.md (9 bytes)"},
		{Value: "/src/AGENTS.md (1,234 bytes; cut: 40,000 bytes not included)"},
		{Value: "/src/cmd/CLAUDE.md (0 bytes; cut: 12 bytes not included)"},
	}
	if d := cmp.Diff(want, instructionFacts(files, system)); d != "" {
		t.Errorf("instructionFacts() mismatch (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]cli.Fact{{Key: "instructions", Value: "none"}}, instructionFacts(nil, system)); d != "" {
		t.Errorf("instructionFacts(nil) mismatch (-want +got):\n%s", d)
	}
}
