package agent

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/rein-agent/rein/internal/skill"
)

// MaxFileSize is the largest agent file read: a larger one is a
// [Problem]. Its body is a system prompt, sent with every request of its
// child: a quarter of a megabyte is far more than one needs.
const MaxFileSize = 256 << 10

// maxFiles bounds the files looked at under one directory, and maxDepth
// how deep below it: an agents directory is a handful of files, and a
// repository must not make rein walk a tree.
const (
	maxFiles = 128
	maxDepth = 4
	// maxBytes bounds what is read of one directory's files in all: a
	// repository's files are read (to ask whether to trust them) before
	// the person has said anything.
	maxBytes = 2 << 20
)

// outsideProject is the problem of a project's agent directory or file
// that leads outside the project.
const outsideProject = "links outside the project; rein does not follow it (a project's agent files are the project's own)"

// read reads the agent files under d.Path, a directory whose links lead
// to real, setting d.Agents and d.Content, and returns the problems met. A
// non-empty limit is the directory every file must lie in once its links
// are followed. Files are named below d.Path, as found.
func (d *Dir) read(real, limit string) []Problem {
	var (
		problems []Problem
		content  bytes.Buffer
		files    int
		total    int
	)
	err := filepath.WalkDir(real, func(walked string, e fs.DirEntry, err error) error {
		rel, _ := filepath.Rel(real, walked)
		path := filepath.Join(d.Path, rel)
		if err != nil {
			problems = append(problems, Problem{Path: path, Message: fmt.Sprintf("cannot read: %v", unwrapPath(err))})
			return nil
		}
		if e.IsDir() {
			if rel != "." && (strings.HasPrefix(e.Name(), ".") || strings.Count(rel, string(filepath.Separator)) >= maxDepth-1) {
				return filepath.SkipDir
			}
			return nil
		}
		format := formatOf(e.Name())
		if format == "" || strings.HasPrefix(e.Name(), ".") {
			return nil
		}
		if files++; files > maxFiles {
			problems = append(problems, Problem{Path: d.Path, Message: fmt.Sprintf("holds more than %d agent files; the rest are not read", maxFiles)})
			return filepath.SkipAll
		}
		data, p := readFile(path, e, limit)
		if total += len(data); total > maxBytes {
			problems = append(problems, Problem{Path: d.Path, Message: fmt.Sprintf("holds more than %d MiB of agent files; the rest are not read", maxBytes>>20)})
			return filepath.SkipAll
		}
		// Trust covers every file, read or not: its name and bytes.
		fmt.Fprintf(&content, "%s\x00%d\x00", rel, len(data))
		content.Write(data)
		if p != nil {
			problems = append(problems, *p)
			return nil
		}
		def, probs := parse(format, data)
		for i := range probs {
			probs[i].Path = path
		}
		problems = append(problems, probs...)
		if def.Name != "" {
			def.Source, def.Scope = path, d.Scope
			d.Agents = append(d.Agents, def)
		}
		return nil
	})
	if err != nil {
		problems = append(problems, Problem{Path: d.Path, Message: fmt.Sprintf("cannot list the agents directory: %v", err)})
	}
	d.Content = content.Bytes()
	return problems
}

// The formats of agent files.
const (
	formatClaude = "md"   // Claude Code's: Markdown with YAML front matter
	formatCodex  = "toml" // Codex's
)

// formatOf returns the format of a file called name, or "" for a file
// that is not an agent's.
func formatOf(name string) string {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".md":
		return formatClaude
	case ".toml":
		return formatCodex
	}
	return ""
}

// readFile reads the agent file at path, met as e: a regular file (or a
// link to one, which must lead inside limit when it is not empty) of at
// most MaxFileSize bytes. It never blocks on a pipe or a device.
func readFile(path string, e fs.DirEntry, limit string) ([]byte, *Problem) {
	if e.Type()&fs.ModeSymlink != 0 {
		info, err := os.Stat(path)
		switch {
		case err != nil:
			return nil, &Problem{Path: path, Message: fmt.Sprintf("is a link that leads nowhere rein can read: %v", unwrapPath(err))}
		case info.IsDir():
			return nil, &Problem{Path: path, Warning: true, Message: "is a link to a directory; rein does not follow it"}
		}
	} else if !e.Type().IsRegular() {
		return nil, &Problem{Path: path, Message: "is not a regular file; rein does not read it"}
	}
	if limit != "" && !skill.Inside(limit, skill.Resolved(path)) {
		return nil, &Problem{Path: path, Message: outsideProject}
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, &Problem{Path: path, Message: fmt.Sprintf("cannot read: %v", unwrapPath(err))}
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, &Problem{Path: path, Message: fmt.Sprintf("cannot read: %v", unwrapPath(err))}
	}
	if !info.Mode().IsRegular() {
		return nil, &Problem{Path: path, Message: "is not a regular file; rein does not read it"}
	}
	if info.Size() > MaxFileSize {
		return nil, &Problem{Path: path, Message: fmt.Sprintf("is %d bytes, more than the %d an agent file may have; it is not read", info.Size(), MaxFileSize)}
	}
	// The file may have grown since it was measured.
	data, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return nil, &Problem{Path: path, Message: fmt.Sprintf("cannot read: %v", unwrapPath(err))}
	}
	if len(data) > MaxFileSize {
		return nil, &Problem{Path: path, Message: fmt.Sprintf("is more than the %d bytes an agent file may have; it is not read", MaxFileSize)}
	}
	return data, nil
}

// unwrapPath is err without the path a *fs.PathError repeats: the
// problem names the file already.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// lineOf returns the line of data (from 1) that holds the byte at off.
func lineOf(data []byte, off int) int {
	return bytes.Count(data[:min(off, len(data))], []byte("\n")) + 1
}

// quote is s quoted for a problem's message when it holds anything a
// terminal would act on, else s.
func quote(s string) string {
	q := strconv.Quote(s)
	if q[1:len(q)-1] == s {
		return s
	}
	return q
}
