package builtin

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestToolEnv(t *testing.T) {
	set := []string{"REIN=1", "PAGER=cat", "GIT_PAGER=cat", "GIT_TERMINAL_PROMPT=0"}
	tests := []struct {
		name                          string
		environ, passthrough, secrets []string
		want                          []string
	}{
		{
			name:    "empty environment gets the set variables",
			environ: nil,
			want:    set,
		},
		{
			name:    "ordinary variables keep their order",
			environ: []string{"PATH=/bin", "HOME=/home/u", "LANG=C.UTF-8", "EMPTY=", "NOEQUALS"},
			want:    append([]string{"PATH=/bin", "HOME=/home/u", "LANG=C.UTF-8", "EMPTY=", "NOEQUALS"}, set...),
		},
		{
			name: "credential suffixes in any case",
			environ: []string{"A=1", "GITHUB_TOKEN=x", "my_api_key=x", "Db_Secret=x", "NPM_TOKEN=",
				"B=2", "TOKEN=kept", "SECRET_PLACE=kept", "API_KEY=kept", "TOKENS_USED=kept"},
			want: append([]string{"A=1", "B=2", "TOKEN=kept", "SECRET_PLACE=kept", "API_KEY=kept", "TOKENS_USED=kept"}, set...),
		},
		{
			name: "well-known credentials",
			environ: []string{"ANTHROPIC_API_KEY=x", "OPENAI_API_KEY=x", "GEMINI_API_KEY=x", "GOOGLE_API_KEY=x",
				"ANTHROPIC_AUTH_TOKEN=x", "AWS_SECRET_ACCESS_KEY=x", "AWS_SESSION_TOKEN=x", "AWS_REGION=eu-west-1"},
			want: append([]string{"AWS_REGION=eu-west-1"}, set...),
		},
		{
			name:    "a secret value under an innocent name",
			environ: []string{"DATABASE_URL=postgres://u:hunter2@db/x", "OTHER=hunter", "CONFIG=sk-live-1"},
			secrets: []string{"", "hunter2", "sk-live-1"},
			want:    append([]string{"OTHER=hunter"}, set...),
		},
		{
			name:        "passthrough keeps a name exactly",
			environ:     []string{"GITHUB_TOKEN=x", "NPM_TOKEN=y", "DATABASE_URL=hunter2", "github_token=z"},
			passthrough: []string{"GITHUB_TOKEN", "DATABASE_URL"},
			secrets:     []string{"hunter2"},
			want:        append([]string{"GITHUB_TOKEN=x", "DATABASE_URL=hunter2"}, set...),
		},
		{
			name:        "the set variables replace the environment's",
			environ:     []string{"PAGER=less", "X=1", "REIN=0", "GIT_PAGER=delta", "GIT_TERMINAL_PROMPT=1", "PAGER=more"},
			passthrough: []string{"PAGER"},
			want:        append([]string{"X=1"}, set...),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := slices.Clone(tt.environ)
			got := ToolEnv(tt.environ, tt.passthrough, tt.secrets)
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("ToolEnv() mismatch (-want +got):\n%s", d)
			}
			if d := cmp.Diff(before, tt.environ); d != "" {
				t.Errorf("ToolEnv() modified environ (-before +after):\n%s", d)
			}
		})
	}
}

func TestCredentials(t *testing.T) {
	got := Credentials([]string{
		"PATH=/usr/bin", "OPENAI_API_KEY=sk-test-1234567890", "GITHUB_TOKEN=ghp_abcdefgh",
		"MY_SECRET=short", "OTHER_TOKEN=ghp_abcdefgh", "HOME=/home/me", "AWS_SECRET_ACCESS_KEY=abcdefghijkl",
	})
	want := []string{"sk-test-1234567890", "ghp_abcdefgh", "abcdefghijkl"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Credentials() mismatch (-want +got):\n%s", diff)
	}
}
