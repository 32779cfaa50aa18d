package linearmem

import "golang.org/x/sys/unix"

// adviseHugePages asks for transparent huge pages for a mapping.
func adviseHugePages(b []byte) { _ = unix.Madvise(b, unix.MADV_HUGEPAGE) }
