package projection

import (
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/state"
)

// maxPlotFiles bounds the paths the plot lists of each kind (read,
// changed); the rest are counted.
const maxPlotFiles = 50

// plot returns what the request after a compaction tells the model of
// where the work stood then, besides the summary: the task list and the
// files the session had read and changed (paths only), from s's copies
// of them taken at the compaction (state.State.SummaryTodos and
// SummaryLedger), so that its bytes stay the same in every request until
// the next compaction. "" when there is neither list nor file. The
// instruction files are not repeated here: they are in the system prompt,
// which a compaction leaves as it is.
func plot(s *state.State) string {
	var b strings.Builder
	if len(s.SummaryTodos) > 0 {
		b.WriteString("The task list (todo_write) as it stood; a later todo_write replaces it:\n")
		for _, td := range s.SummaryTodos {
			b.WriteString(todoLine(td) + "\n")
		}
	}
	var read, changed []string
	for st := range s.SummaryLedger.All() {
		p := relative(s.Cwd, st.Path)
		if st.Op == contract.FileWrite {
			changed = append(changed, p)
		} else {
			read = append(read, p)
		}
	}
	if len(changed) > 0 {
		b.WriteString("Files changed (last written by the session): " + pathList(changed) + "\n")
	}
	if len(read) > 0 {
		b.WriteString("Files read and not changed by the session since (their reads are on record: edit_file accepts them " +
			"unless they changed on disk; read one again only for text the summary does not give): " + pathList(read) + "\n")
	}
	if b.Len() == 0 {
		return ""
	}
	return "[rein: where the work stood at the compaction, from the session's record]\n" + strings.TrimSuffix(b.String(), "\n")
}

// todoLine is one item of a task list as the model reads it.
func todoLine(td contract.Todo) string {
	switch td.Status {
	case contract.TodoCompleted:
		return "- [x] " + td.Content
	case contract.TodoInProgress:
		return "- [ ] " + td.Content + " (in progress)"
	}
	return "- [ ] " + td.Content
}

// relative returns path relative to the workspace root, when it is under
// it; path itself otherwise.
func relative(root, path string) string {
	if root == "" {
		return path
	}
	if rel, err := filepath.Rel(root, path); err == nil && filepath.IsLocal(rel) {
		return filepath.ToSlash(rel)
	}
	return path
}

// pathList lists paths sorted, separated by commas, at most maxPlotFiles
// of them, then how many more there are.
func pathList(paths []string) string {
	slices.Sort(paths)
	more := len(paths) - maxPlotFiles
	if more > 0 {
		paths = paths[:maxPlotFiles]
	}
	out := strings.Join(paths, ", ")
	if more > 0 {
		out += " and " + strconv.Itoa(more) + " more"
	}
	return out
}
