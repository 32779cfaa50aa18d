//go:build unix

package codecache

import (
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// checkPrivate refuses a directory that another user owns or that its
// group or anyone may write: they could put code in it while a host runs.
func checkPrivate(dir string) error {
	st, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	if !st.IsDir() {
		return fmt.Errorf("compilation cache %s: not a directory (%s)", dir, st.Mode())
	}
	if sys, ok := st.Sys().(*syscall.Stat_t); ok && int(sys.Uid) != os.Geteuid() {
		return fmt.Errorf("compilation cache %s: owned by user %d, not by this process's user %d: another user could change the code it holds; use a directory of your own (Options.CacheDir, --cache-dir)", dir, sys.Uid, os.Geteuid())
	}
	if st.Mode().Perm()&0o022 != 0 {
		return fmt.Errorf("compilation cache %s: writable by its group or by anyone (mode %s): others could change the code it holds; chmod go-w it, or use a directory of your own", dir, st.Mode().Perm())
	}
	return nil
}

// checkSecret refuses a key file that is not a regular file of this user
// readable and writable by it alone.
func checkSecret(path string, st fs.FileInfo) error {
	if !st.Mode().IsRegular() {
		return fmt.Errorf("compilation cache key %s: not a regular file (%s)", path, st.Mode())
	}
	if sys, ok := st.Sys().(*syscall.Stat_t); ok && int(sys.Uid) != os.Geteuid() {
		return fmt.Errorf("compilation cache key %s: owned by user %d, not by this process's user %d", path, sys.Uid, os.Geteuid())
	}
	if st.Mode().Perm()&0o077 != 0 {
		return fmt.Errorf("compilation cache key %s: readable or writable by others (mode %s): whoever reads it can forge cache entries; delete it and a new one is made", path, st.Mode().Perm())
	}
	return nil
}
