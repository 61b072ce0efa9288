package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/permission"
)

// AnswersFile is the name of the person's file of the rules their
// "always" and "never" answers saved, beside their own config.toml: a
// [projects."DIR".permissions] table for each project directory. It is
// the person's, as Claude Code's settings.local.json and the per-project
// entries of its ~/.claude.json are: never in a repository, so approvals
// are not committed with the code, and a cloned repository cannot plant
// rules the person never gave (a committed .rein/config.local.toml
// could). The sandbox hides it from commands, as it hides config.toml.
const AnswersFile = "projects.toml"

// AnswersPath returns the answers file beside the person's config file
// userConfig ([Paths].User); "" when userConfig is "".
func AnswersPath(userConfig string) string {
	if userConfig == "" {
		return ""
	}
	return filepath.Join(filepath.Dir(userConfig), AnswersFile)
}

// Answers is where a person's answers are kept for one project: the table
// of Project in File. The zero Answers keeps nothing: Load finds no rules
// and Save fails with [ErrNoAnswersFile].
type Answers struct {
	// File is the person's answers file ([AnswersPath]).
	File string
	// Project is the project's directory, absolute, links resolved (the
	// workspace root): the key of its table.
	Project string
}

// Shorten returns path with the person's home directory written ~, for
// people: ~/.config/rein/projects.toml.
func Shorten(path string) string {
	home, err := os.UserHomeDir()
	if err != nil || home == "" || home == "/" {
		return path
	}
	if rest, ok := strings.CutPrefix(path, home+string(filepath.Separator)); ok {
		return filepath.Join("~", rest)
	}
	return path
}

// ErrNoAnswersFile is Save's error when the Answers has no file.
var ErrNoAnswersFile = errors.New("config: no file to keep answers in")

// table is the key path of the project's table.
func (a Answers) table() []string { return []string{"projects", a.Project, "permissions"} }

// Load returns the rules saved for a.Project, each with the origin of
// an answer. A missing file, or no table for the project, is no rules; a
// file that cannot be read or is not valid TOML, or a rule of the
// project's that does not parse, is an error naming the file (and the
// line and column, where the decoder says), and no rules at all: the
// caller goes on without them and says so, since a file a person broke
// by hand must not keep rein from starting ([Answers.Save] then refuses
// to write into it).
func (a Answers) Load() (permission.Rules, error) {
	var out permission.Rules
	if a.File == "" || a.Project == "" {
		return out, nil
	}
	d, err := decodeAnswers(a.File)
	if err != nil || d == nil {
		return out, err
	}
	p := d.Projects[a.Project].Permissions
	origin := permission.Origin{Kind: permission.FromAnswers, File: a.File}
	for _, l := range []struct {
		key   string
		texts []string
		to    *[]permission.Rule
	}{{"allow", p.Allow, &out.Allow}, {"ask", p.Ask, &out.Ask}, {"deny", p.Deny, &out.Deny}} {
		rules, err := permission.ParseRules(l.texts)
		if err != nil {
			return permission.Rules{}, fmt.Errorf("config: %s: [projects.%s.permissions] %s: %v", a.File, tomlKey(a.Project), l.key, err)
		}
		for _, r := range rules {
			*l.to = append(*l.to, r.WithOrigin(origin))
		}
	}
	return out, nil
}

// answersFile is what the answers file holds.
type answersFile struct {
	Projects map[string]struct {
		Permissions Permissions `toml:"permissions"`
	} `toml:"projects"`
}

// decodeAnswers reads the answers file at path; a missing file is nil.
func decodeAnswers(path string) (*answersFile, error) {
	data, err := readFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	var f answersFile
	if _, err := toml.Decode(string(data), &f); err != nil {
		return nil, tomlError(path, string(data), err)
	}
	return &f, nil
}

// Save adds r to the list of decision d (allow, ask or deny) of
// a.Project's table, creating the file (readable by the person only) and
// its directory when missing, and keeping the rest of the file byte for
// byte, comments included (see saveRuleIn). A rule already there is not
// added twice. A file that is not valid TOML is left as it is: the error
// names its line and says to fix or delete it. It is safe for concurrent use, by this process and others
// (rein's in other terminals) on the same file: each save reads, changes
// and writes the file under a lock on projects.toml.lock beside it.
func (a Answers) Save(d contract.Decision, r permission.Rule) error {
	list, ok := lists[d]
	switch {
	case !ok:
		return fmt.Errorf("config: unknown rule list %q; want allow, ask or deny", d)
	case r.IsZero():
		return errors.New("config: cannot save an empty rule")
	case a.File == "" || a.Project == "":
		return ErrNoAnswersFile
	}
	if back, err := permission.ParseRule(r.String()); err != nil || back.String() != r.String() {
		// Saved, it would make the file unreadable (or mean another rule)
		// next time: a command with a control character is written
		// $'...', which a rule does not accept.
		return fmt.Errorf("config: cannot save the rule %s: its text does not read back as the same rule", r)
	}
	return saveRuleIn(a.File, a.table(), list, r, 0o600)
}
