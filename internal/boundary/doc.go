// Package boundary holds no code: its tests check the architecture's
// boundaries (DESIGN.md section 1) on the import graph. A provider only
// translates, so no package under internal/provider may import os/exec, the
// tool runtime, the permission package or the kernel; the CLI is thin, so
// internal/cli reaches providers and tools only through the kernel. The
// contracts and the leaves everyone builds on (internal/workspace,
// internal/atomicfile) import only the standard library.
package boundary
