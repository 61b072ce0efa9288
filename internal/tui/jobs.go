package tui

import (
	"fmt"
	"strings"

	tea "github.com/rein-agent/rein/internal/thirdparty/bubbletea"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/printable"
	"github.com/rein-agent/rein/internal/state"
	"github.com/rein-agent/rein/internal/tui/transcript"
)

// NoJobs is what /jobs says of a session that started none.
const NoJobs = "no background jobs: the model starts one with bash's run_in_background, and job_output reads it"

// JobLines are the lines /jobs shows, in the UI and the line mode, one a
// job of the session, in the order started: its id, whether it runs or
// how it ended (exit code, bytes printed), and its command's first line,
// printable. rein records a job's end before each model request, when
// /jobs asks, and at the session's end.
func JobLines(jobs []state.Job) []string {
	lines := make([]string, 0, len(jobs))
	for _, j := range jobs {
		how := "running"
		switch {
		case j.Running:
		case j.Outcome == contract.JobExited:
			how = fmt.Sprintf("exited %d · %s", j.ExitCode, byteCount(j.Bytes))
		case j.Outcome == contract.JobKilled:
			how = "killed · " + byteCount(j.Bytes)
		case j.Outcome == contract.JobSessionEnd:
			how = "ended with the session · " + byteCount(j.Bytes)
		case j.Outcome == contract.JobRestart:
			how = "ended when rein stopped"
		default:
			how = printable.Line(j.Outcome)
		}
		command, _, more := strings.Cut(j.Command, "\n")
		if more {
			command += " …"
		}
		lines = append(lines, fmt.Sprintf("%s  %-24s  %s", printable.Line(j.ID), how, printable.Line(command)))
	}
	return lines
}

// byteCount is n bytes in B, KB or MB.
func byteCount(n int64) string {
	switch {
	case n >= 1_000_000:
		return fmt.Sprintf("%.1f MB", float64(n)/1e6)
	case n >= 1000:
		return fmt.Sprintf("%.1f KB", float64(n)/1e3)
	}
	return fmt.Sprintf("%d B", n)
}

// jobsPart is the status line's count of running jobs; "" when none runs.
func jobsPart(st *state.State) string {
	switch n := st.RunningJobs(); n {
	case 0:
		return ""
	case 1:
		return "1 job"
	default:
		return fmt.Sprintf("%d jobs", n)
	}
}

// settler is a runtime that records the ends of jobs when asked
// (kernel.Kernel.SettleJobs).
type settler interface{ SettleJobs() error }

func (m *model) jobs(string) tea.Cmd {
	if s, ok := m.rt.(settler); ok {
		_ = s.SettleJobs() // a log that fails says so at the next append
	}
	st := m.rt.State()
	lines := JobLines(st.Jobs)
	if len(lines) == 0 {
		m.print(transcript.Note("info", NoJobs, m.width, m.theme))
		return m.flushPrint()
	}
	var b strings.Builder
	for _, l := range lines {
		b.WriteString(truncate("  "+l, m.width) + "\n")
	}
	m.print(strings.TrimSuffix(b.String(), "\n"))
	return m.flushPrint()
}
