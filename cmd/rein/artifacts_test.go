package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Through the binary, under max_artifact_bytes = 400_000 in the user's
// file: the first 300 KB output is kept as an artifact; the second would
// cross the limit, so the model is shown it shortened, told it was not
// kept and why, and no file of it is left in the session.
func TestSessionArtifactsStayWithinTheConfiguredLimit(t *testing.T) {
	const command = `head -c 300000 /dev/zero | tr '\0' a`
	notKept := "was not kept: this session's artifacts reached their limit of 400 KB (max_artifact_bytes)"
	expecting := func(expect, turn string) string { return `{"expect":` + expect + "," + strings.TrimPrefix(turn, "{") }
	script := writeScript(t, `{"turns":[`+bashTurn(command)+`,`+
		expecting(`[{"ok":true,"contains":["lines omitted","the whole output is in the session artifact"]}]`, bashTurn(command))+`,`+
		expecting(`[{"ok":true,"contains":["lines omitted","`+notKept+`"]}]`, `{"steps":[{"text":"Done."},{"finish":"stop"}]}`)+`]}`)
	cfg := t.TempDir()
	if err := os.MkdirAll(filepath.Join(cfg, "rein"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cfg, "rein", "config.toml"), []byte("max_artifact_bytes = 400_000\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	stateDir := t.TempDir()
	cmd := exec.Command(rein, "exec", "--permission-mode", "yolo", "--provider", "scripted", "--script", script, "print a lot twice")
	cmd.Dir = t.TempDir()
	cmd.Env = append(cleanEnv(), "XDG_STATE_HOME="+stateDir, "XDG_CONFIG_HOME="+cfg, "NO_COLOR=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("rein exec: %v\n%s", err, out)
	}
	obs := observationsOf(events(t, stateDir))
	if len(obs) != 2 || obs[0].ArtifactRef == "" || obs[1].ArtifactRef != "" || !strings.Contains(obs[1].Text, notKept) {
		t.Fatalf("observations: %+v", obs)
	}
	files, _ := filepath.Glob(filepath.Join(stateDir, "rein", "sessions", "*", "artifacts", "*"))
	if len(files) != 1 || filepath.Base(files[0]) != filepath.Base(obs[0].ArtifactRef) {
		t.Errorf("artifacts on disk: %v; want only %s", files, obs[0].ArtifactRef)
	}
}
