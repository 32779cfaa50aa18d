//go:build !unix

package codecache

import (
	"fmt"
	"io/fs"
	"os"
)

// checkPrivate checks that dir is a directory; permissions are the
// system's (ACLs) here.
func checkPrivate(dir string) error {
	st, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	if !st.IsDir() {
		return fmt.Errorf("compilation cache %s: not a directory (%s)", dir, st.Mode())
	}
	return nil
}

// checkSecret checks that the key is a regular file.
func checkSecret(path string, st fs.FileInfo) error {
	if !st.Mode().IsRegular() {
		return fmt.Errorf("compilation cache key %s: not a regular file (%s)", path, st.Mode())
	}
	return nil
}
