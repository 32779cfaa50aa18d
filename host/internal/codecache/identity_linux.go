package codecache

import (
	"encoding/binary"
	"io/fs"
	"syscall"
)

// identity is what tells a file apart from any later change to it: its
// device, inode, size and modification and change times. The change time
// is set by the kernel at every change and cannot be set back by a user.
func identity(st fs.FileInfo) string {
	sys, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return ""
	}
	b := make([]byte, 0, 56)
	for _, v := range []uint64{uint64(sys.Dev), uint64(sys.Ino), uint64(sys.Size), uint64(sys.Mtim.Sec), uint64(sys.Mtim.Nsec), uint64(sys.Ctim.Sec), uint64(sys.Ctim.Nsec)} {
		b = binary.LittleEndian.AppendUint64(b, v)
	}
	return string(b)
}
