// Package appfile reads the files of an app (endpoints.json,
// routes.config.json, route, middleware and runtime modules) as the host
// loads them: regular files only, within a size bound, so that a FIFO
// cannot hang a start (and its shutdown) and a device such as /dev/zero
// cannot fill the host's memory.
package appfile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
)

// Bounds on what Read reads of one file.
const (
	// MaxModuleBytes is the largest module (a name ending in .wasm) the
	// host reads: 256 MiB, some 60 times a Go SDK module.
	MaxModuleBytes = 256 << 20
	// MaxConfigBytes is the largest other file the host reads
	// (endpoints.json, routes.config.json): 4 MiB.
	MaxConfigBytes = 4 << 20
)

// Limit is the most bytes Read reads of the file name: MaxModuleBytes for
// a module, MaxConfigBytes otherwise.
func Limit(name string) int64 {
	if strings.HasSuffix(name, ".wasm") {
		return MaxModuleBytes
	}
	return MaxConfigBytes
}

// Read reads the file at path, which errors call name (its path in the
// app, e.g. "server/api/users.get.wasm"). It refuses, naming the file, one
// that is not a regular file (a FIFO, a device, a socket, a directory,
// after following symbolic links) and one larger than Limit(name). A
// missing file gives an error that errors.Is fs.ErrNotExist.
//
//	data, err := appfile.Read(filepath.Join(app, "endpoints.json"), "endpoints.json")
//
// # Notes
//
//   - The file is checked before it is opened, and opened without blocking
//     (on unix), then checked again: a FIFO swapped in between is refused
//     rather than waited on.
func Read(path, name string) ([]byte, error) {
	return ReadWithin(path, name, Limit(name))
}

// ReadWithin is Read with a limit of the caller's: a file larger than
// limit bytes is refused with ErrTooLarge.
func ReadWithin(path, name string, limit int64) ([]byte, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if err := regular(name, st); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_RDONLY|openFlags, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err = f.Stat(); err != nil {
		return nil, err
	}
	if err := regular(name, st); err != nil {
		return nil, err
	}
	if st.Size() > limit {
		return nil, tooLarge(name, limit)
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if int64(len(data)) > limit {
		return nil, tooLarge(name, limit) // it grew while read
	}
	return data, nil
}

// ErrNotRegular is the error of a file that is not a regular one.
var ErrNotRegular = errors.New("not a regular file")

// ErrTooLarge is the error of a file larger than its limit.
var ErrTooLarge = errors.New("file too large")

func regular(name string, st fs.FileInfo) error {
	if st.Mode().IsRegular() {
		return nil
	}
	return fmt.Errorf("%s: %w (%s): the host reads an app's files whole, so it takes regular files only; replace it with one", name, ErrNotRegular, kind(st.Mode()))
}

func kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	}
	return "mode " + m.String()
}

func tooLarge(name string, limit int64) error {
	if limit < 1<<20 {
		return fmt.Errorf("%s: %w: more than the %d bytes the host reads of it", name, ErrTooLarge, limit)
	}
	return fmt.Errorf("%s: %w: more than the %d bytes (%d MiB) the host reads of it", name, ErrTooLarge, limit, limit>>20)
}

// TrimLineEnd drops one trailing line end ("\n" or "\r\n") from the
// content of a file holding one value (a secret mounted by Docker or
// Kubernetes, a variable's file): `echo value > file` and most secret
// stores write one, and it is never part of the value.
func TrimLineEnd(b []byte) []byte {
	if bytes.HasSuffix(b, []byte("\r\n")) {
		return b[:len(b)-2]
	}
	return bytes.TrimSuffix(b, []byte("\n"))
}
