//go:build unix

package builtin_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rein-agent/rein/internal/permission"
	"github.com/rein-agent/rein/internal/tool/builtin"
	"github.com/rein-agent/rein/internal/workspace/workspacetest"
)

// skillSession is a workspace and, outside it, a person's skill directory
// the read tools may read (Options.ReadRoots), with a runtime over both.
type skillSession struct {
	artifactSession
	skill   string // the skill's directory, outside the workspace
	outside string // a directory beside it, not in reach
}

func newSkillSession(t *testing.T, mode permission.Mode, linked bool) *skillSession {
	t.Helper()
	base := workspacetest.RealTemp(t)
	s := &skillSession{}
	s.ws = workspacetest.Mkdir(t, filepath.Join(base, "ws"))
	skills := workspacetest.Mkdir(t, filepath.Join(base, "home", ".claude", "skills"))
	s.skill = workspacetest.Mkdir(t, filepath.Join(skills, "pdf"))
	s.outside = workspacetest.Mkdir(t, filepath.Join(skills, "other"))
	s.put(t, filepath.Join(s.skill, "SKILL.md"), "---\nname: pdf\ndescription: Fill forms.\n---\nRun scripts/fill.py.\n")
	workspacetest.Mkdir(t, filepath.Join(s.skill, "scripts"))
	s.put(t, filepath.Join(s.skill, "scripts", "fill.py"), "print('filled')\n")
	s.put(t, filepath.Join(s.outside, "secret.txt"), "a secret\n")
	s.put(t, filepath.Join(skills, "beside.txt"), "a secret beside\n")
	root := s.skill
	if linked {
		// The workspace's own skills directory links to the person's skill:
		// the read root is where the link leads.
		workspacetest.Mkdir(t, filepath.Join(s.ws, ".claude", "skills"))
		root = filepath.Join(s.ws, ".claude", "skills", "pdf")
		workspacetest.Symlink(t, s.skill, root)
	}
	s.rt = newRuntime(t, s.ws, mode, &builtin.Options{ReadRoots: []string{root}}, nil)
	return s
}

// The read tools read a skill's SKILL.md and the files beside it, outside
// the workspace, by absolute path, in default and plan mode alike, and a
// read leaves no stamp in the ledger.
func TestReadToolsReadASkillOutsideTheWorkspace(t *testing.T) {
	for _, mode := range []permission.Mode{permission.Default, permission.Plan} {
		t.Run(mode.String(), func(t *testing.T) {
			s := newSkillSession(t, mode, false)
			o := s.call(t, "read_file", fmt.Sprintf(`{"path":%q}`, filepath.Join(s.skill, "SKILL.md")))
			if !o.OK || !strings.Contains(o.Text, "Run scripts/fill.py.") || len(o.Files) != 0 {
				t.Errorf("read_file of SKILL.md = %+v", o)
			}
			for _, c := range [][3]string{
				{"read_file", fmt.Sprintf(`{"path":%q}`, filepath.Join(s.skill, "scripts", "fill.py")), "filled"},
				{"list_dir", fmt.Sprintf(`{"path":%q}`, s.skill), "scripts"},
				{"glob", fmt.Sprintf(`{"pattern":"**/*.py","path":%q}`, s.skill), "fill.py"},
				{"grep", fmt.Sprintf(`{"pattern":"filled","path":%q}`, s.skill), "fill.py"},
			} {
				if o := s.call(t, c[0], c[1]); !o.OK || !strings.Contains(o.Text, c[2]) {
					t.Errorf("%s %s = %+v, want it to show %q", c[0], c[1], o, c[2])
				}
			}
		})
	}
}

// A skill reached through a link in the workspace is read where the link
// leads, and is not changed there either.
func TestAWorkspaceLinkToASkillOutside(t *testing.T) {
	s := newSkillSession(t, permission.Yolo, true)
	path := filepath.Join(".claude", "skills", "pdf", "SKILL.md")
	if o := s.call(t, "read_file", fmt.Sprintf(`{"path":%q}`, path)); !o.OK || !strings.Contains(o.Text, "Fill forms.") {
		t.Fatalf("read_file of %s = %+v", path, o)
	}
	refused(t, s.call(t, "write_file", fmt.Sprintf(`{"path":%q,"content":"forged\n"}`, path)), "may read but not change")
}

// No tool writes in a read root, even in yolo mode, and nothing is made
// there.
func TestNoToolWritesInAReadRoot(t *testing.T) {
	s := newSkillSession(t, permission.Yolo, false)
	skillFile := filepath.Join(s.skill, "SKILL.md")
	before, err := os.ReadFile(skillFile)
	if err != nil {
		t.Fatal(err)
	}
	s.call(t, "read_file", fmt.Sprintf(`{"path":%q}`, skillFile))
	refused(t, s.call(t, "write_file", fmt.Sprintf(`{"path":%q,"content":"forged\n"}`, skillFile)), "may read but not change")
	refused(t, s.call(t, "edit_file", fmt.Sprintf(`{"path":%q,"old_string":"Run","new_string":"Skip"}`, skillFile)), "may read but not change")
	refused(t, s.call(t, "write_file", fmt.Sprintf(`{"path":%q,"content":"new\n"}`, filepath.Join(s.skill, "new.md"))), "may read but not change")
	if after, _ := os.ReadFile(skillFile); string(after) != string(before) {
		t.Errorf("SKILL.md changed:\n%s", after)
	}
	if _, err := os.Stat(filepath.Join(s.skill, "new.md")); !os.IsNotExist(err) {
		t.Errorf("a file was made in the skill's directory: %v", err)
	}
}

// Only what lies in the read root, links followed, is in reach: a ".."
// out of it, a link planted in it that leads outside, and the skill
// beside it are refused, and nothing of what they lead to is shown.
func TestReadRootsDoNotWidenTheWorkspace(t *testing.T) {
	s := newSkillSession(t, permission.Default, false)
	workspacetest.Symlink(t, filepath.Join(s.outside, "secret.txt"), filepath.Join(s.skill, "link.txt"))
	workspacetest.Symlink(t, s.outside, filepath.Join(s.skill, "dir_link"))
	for _, c := range []struct{ name, path string }{
		{"dotdot", s.skill + "/../other/secret.txt"},
		{"dotdot to the skills directory", s.skill + "/../beside.txt"},
		{"dotdot after a link", filepath.Join(s.skill, "dir_link") + "/../beside.txt"},
		{"link to a file outside", filepath.Join(s.skill, "link.txt")},
		{"through a linked directory", filepath.Join(s.skill, "dir_link", "secret.txt")},
		{"the skill beside", filepath.Join(s.outside, "secret.txt")},
	} {
		t.Run(c.name, func(t *testing.T) {
			refused(t, s.call(t, "read_file", fmt.Sprintf(`{"path":%q}`, c.path)), "outside the workspace")
			refused(t, s.call(t, "grep", fmt.Sprintf(`{"pattern":"secret","path":%q}`, c.path)), "outside the workspace")
		})
	}
	refused(t, s.call(t, "list_dir", fmt.Sprintf(`{"path":%q}`, filepath.Dir(s.skill))), "outside the workspace")
	for _, c := range [][2]string{
		{"grep", fmt.Sprintf(`{"pattern":"secret","path":%q}`, s.skill)},
		{"glob", fmt.Sprintf(`{"pattern":"**","path":%q}`, s.skill)},
	} {
		if o := s.call(t, c[0], c[1]); !o.OK || strings.Contains(o.Text, "a secret") || strings.Contains(o.Text, "link.txt") {
			t.Errorf("%s over the skill = %+v; want nothing the links lead to", c[0], o)
		}
	}
}

// The read root is where it was when the tools were made: the directory
// replaced later by a link to elsewhere does not lead reads there.
func TestAReadRootMadeALinkLater(t *testing.T) {
	s := newSkillSession(t, permission.Default, false)
	if err := os.RemoveAll(s.skill); err != nil {
		t.Fatal(err)
	}
	workspacetest.Symlink(t, s.outside, s.skill)
	refused(t, s.call(t, "read_file", fmt.Sprintf(`{"path":%q}`, filepath.Join(s.skill, "secret.txt"))), "outside the workspace")
}
