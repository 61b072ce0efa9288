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
			name: "the terminal multiplexer, display and session bus, unless passed through",
			environ: []string{"TMUX=/tmp/tmux-1000/default,1,0", "TMUX_PANE=%1", "STY=1.pts-0", "DISPLAY=:0",
				"WAYLAND_DISPLAY=wayland-0", "XAUTHORITY=/home/u/.Xauthority", "DBUS_SESSION_BUS_ADDRESS=unix:path=/run/user/1000/bus", "TERM=xterm"},
			passthrough: []string{"DISPLAY"},
			want:        append([]string{"DISPLAY=:0", "TERM=xterm"}, set...),
		},
		{
			name: "well-known credentials",
			environ: []string{"ANTHROPIC_API_KEY=x", "OPENAI_API_KEY=x", "GEMINI_API_KEY=x", "GOOGLE_API_KEY=x",
				"ANTHROPIC_AUTH_TOKEN=x", "AWS_SECRET_ACCESS_KEY=x", "AWS_SESSION_TOKEN=x", "AWS_REGION=eu-west-1"},
			want: append([]string{"AWS_REGION=eu-west-1"}, set...),
		},
		{
			name: "credential words anywhere in a name, in any case",
			environ: []string{"DB_PASSWORD=x", "PGPASSWORD=x", "smtp_passwd=x", "GOOGLE_APPLICATION_CREDENTIALS=/k.json",
				"Docker_Credential_Helper=x", "SSH_PRIVATE_KEY=x", "MYSQL_PWD=x", "AWS_SECRET_ACCESS_KEY=x", "AWS_SESSION_TOKEN=x",
				"PASSWORD=x", "C=3"},
			want: append([]string{"C=3"}, set...),
		},
		{
			name: "where a credential is kept is no credential",
			environ: []string{"PASSWORD_STORE_DIR=/home/u/.password-store", "POSTGRES_PASSWORD_FILE=/run/secrets/db",
				"AWS_SHARED_CREDENTIALS_FILE=/home/u/.aws/credentials", "CREDENTIALS_DIRECTORY=/run/credentials/x",
				"GIT_ASKPASS=/usr/lib/git-core/git-gui--askpass", "SSH_ASKPASS=/usr/bin/ksshaskpass", "SSH_AUTH_SOCK=/run/user/1000/ssh",
				"KEY_PATH=/k", "PASSPORT=kept", "COMPASS=kept"},
			want: append([]string{"PASSWORD_STORE_DIR=/home/u/.password-store", "POSTGRES_PASSWORD_FILE=/run/secrets/db",
				"AWS_SHARED_CREDENTIALS_FILE=/home/u/.aws/credentials", "CREDENTIALS_DIRECTORY=/run/credentials/x",
				"GIT_ASKPASS=/usr/lib/git-core/git-gui--askpass", "SSH_ASKPASS=/usr/bin/ksshaskpass", "SSH_AUTH_SOCK=/run/user/1000/ssh",
				"KEY_PATH=/k", "PASSPORT=kept", "COMPASS=kept"}, set...),
		},
		{
			name: "a URL with a password under any name",
			environ: []string{"DATABASE_URL=postgres://u:p@h/db", "REDIS_URL=redis://:p@h:6379", "REMOTE=https://user:tok@host/",
				"HTTPS_PROXY=http://me:pw@proxy:3128", "SENTINELS=redis://h1,redis://:p@h2",
				"PLAIN_URL=https://host/path?x=a@b", "USER_URL=ssh://git@github.com/x", "EMPTY_PW=https://user:@host/",
				"NOT_URL=u:p@h", "D=4"},
			want: append([]string{"PLAIN_URL=https://host/path?x=a@b", "USER_URL=ssh://git@github.com/x", "EMPTY_PW=https://user:@host/",
				"NOT_URL=u:p@h", "D=4"}, set...),
		},
		{
			name:        "passthrough hands a password to tools on purpose",
			environ:     []string{"DB_PASSWORD=hunter22", "DATABASE_URL=postgres://u:hunter22@h/db", "PGPASSWORD=x"},
			passthrough: []string{"DB_PASSWORD", "DATABASE_URL"},
			want:        append([]string{"DB_PASSWORD=hunter22", "DATABASE_URL=postgres://u:hunter22@h/db"}, set...),
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
	tests := []struct {
		name    string
		environ []string
		want    []string
	}{
		{
			name: "by name, 8 bytes or more, without repeats",
			environ: []string{"PATH=/usr/bin", "OPENAI_API_KEY=sk-test-1234567890", "GITHUB_TOKEN=ghp_abcdefgh",
				"MY_SECRET=short", "OTHER_TOKEN=ghp_abcdefgh", "HOME=/home/me", "AWS_SECRET_ACCESS_KEY=abcdefghijkl"},
			want: []string{"sk-test-1234567890", "ghp_abcdefgh", "abcdefghijkl"},
		},
		{
			name: "the new names",
			environ: []string{"DB_PASSWORD=correct-horse", "SMTP_PASSWD=battery-staple", "GOOGLE_APPLICATION_CREDENTIALS=/home/me/key.json",
				"DEPLOY_PRIVATE_KEY=-----BEGIN KEY-----", "AWS_SESSION_TOKEN=FwoGZXIvYXdzEB", "PASSWORD_STORE_DIR=/home/me/.password-store"},
			want: []string{"correct-horse", "battery-staple", "/home/me/key.json", "-----BEGIN KEY-----", "FwoGZXIvYXdzEB"},
		},
		{
			name: "a URL's password on its own, as written and decoded",
			environ: []string{"DATABASE_URL=postgres://u:longpassword@h/db", "REDIS_URL=redis://:p@h",
				"PROXY=http://me:p%40ss%2Fword@proxy:3128", "MIRROR=https://user:tok@host/"},
			want: []string{"postgres://u:longpassword@h/db", "longpassword", "redis://:p@h",
				"http://me:p%40ss%2Fword@proxy:3128", "p%40ss%2Fword", "p@ss/word", "https://user:tok@host/"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, Credentials(tt.environ)); diff != "" {
				t.Errorf("Credentials() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
