package boundary

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// mdLink matches the target of a markdown link.
var mdLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// The README and the docs link only to files in the repository, and every
// file they link to exists: a clone is all a reader has.
func TestDocsLinkOnlyInsideTheRepository(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	docs, _ := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	for _, doc := range append([]string{filepath.Join(root, "README.md")}, docs...) {
		b, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		name, _ := filepath.Rel(root, doc)
		for _, m := range mdLink.FindAllStringSubmatch(string(b), -1) {
			target, _, _ := strings.Cut(m[1], "#")
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				t.Errorf("%s links outside the repository: %s", name, m[1])
				continue
			}
			if target == "" {
				continue
			}
			abs := filepath.Clean(filepath.Join(filepath.Dir(doc), target))
			if rel, err := filepath.Rel(root, abs); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
				t.Errorf("%s links outside the repository: %s", name, m[1])
				continue
			}
			if _, err := os.Stat(abs); err != nil {
				t.Errorf("%s links to %s, which does not exist", name, m[1])
			}
		}
	}
}

// packageRow matches a row of ARCHITECTURE.md's table of packages and
// captures the package names it stands for, in backquotes.
var packageRow = regexp.MustCompile("^\\| ((?:`[^`]+`(?:, )?)+) \\|")

// ARCHITECTURE.md says that its table of packages lists them so that
// imports point down the table: each package listed imports none listed
// above it. A row may name several packages; a package the table does
// not name is not checked.
func TestArchitectureListsPackagesInImportOrder(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "ARCHITECTURE.md"))
	if err != nil {
		t.Fatal(err)
	}
	rowOf := map[string]int{} // package -> its row
	for n, line := range strings.Split(string(b), "\n") {
		m := packageRow.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		for _, name := range strings.Split(m[1], ", ") {
			name = strings.Trim(name, "`")
			if strings.HasPrefix(name, "internal/") || strings.HasPrefix(name, "cmd/") {
				rowOf[module+"/"+name] = n
			}
		}
	}
	if len(rowOf) < 20 {
		t.Fatalf("found %d packages in ARCHITECTURE.md's table, want its whole list", len(rowOf))
	}
	for path, p := range packages(t) {
		row, listed := rowOf[path]
		if !listed {
			continue
		}
		for _, dep := range p.Imports {
			if up, ok := rowOf[dep]; ok && up < row {
				t.Errorf("ARCHITECTURE.md lists %s above %s, which imports it: arrows must point down the list", dep, path)
			}
		}
	}
}
