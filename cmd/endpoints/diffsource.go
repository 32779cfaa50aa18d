package main

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"

	"github.com/wasmendpoints/endpoints/cmd/endpoints/internal/apidiff"
	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/host"
)

// The two sides endpoints diff compares: an app directory, a document file,
// or either of them at a git ref (REF:PATH).

// sideDocument returns the OpenAPI document arg names: an app directory's
// (its modules built first with buildApp, otherwise refused when stale),
// a document file, or REF:PATH.
func sideDocument(ctx context.Context, arg, cacheDir string, buildApp bool, ovs []config.Override, stderr io.Writer) (apidiff.Document, error) {
	fi, err := os.Stat(arg)
	switch {
	case err == nil && fi.IsDir():
		data, err := appDocument(ctx, arg, cacheDir, buildApp, ovs, stderr)
		return apidiff.Document{Name: arg, Data: data}, err
	case err == nil:
		return fileDocument(arg)
	case !errors.Is(err, os.ErrNotExist):
		return apidiff.Document{}, err
	}
	if ref, rel, ok := strings.Cut(arg, ":"); ok && ref != "" {
		return refDocument(ctx, ref, rel, cacheDir, ovs, stderr)
	}
	return apidiff.Document{}, fmt.Errorf("%s does not exist: want an app directory, a document (.json, .yaml, .yml) or REF:PATH", arg)
}

// fileDocument reads a document file.
func fileDocument(file string) (apidiff.Document, error) {
	if err := documentExt(file); err != nil {
		return apidiff.Document{}, err
	}
	data, err := os.ReadFile(file)
	return apidiff.Document{Name: file, Data: data}, err
}

func documentExt(file string) error {
	switch strings.ToLower(path.Ext(filepath.ToSlash(file))) {
	case ".json", ".yaml", ".yml":
		return nil
	}
	return fmt.Errorf("%s is a file but not an OpenAPI document: want .json, .yaml or .yml, or an app directory", file)
}

// appDocument loads an app as endpoints openapi does and returns its
// document. Modules must be built already, and no older than what they are
// built from, unless build is true: then the app's sources are built
// first, as endpoints build does, its output kept for when it fails.
func appDocument(ctx context.Context, app, cacheDir string, buildFirst bool, ovs []config.Override, stderr io.Writer) ([]byte, error) {
	if err := checkAppDir(app); err != nil {
		return nil, err
	}
	if buildFirst {
		var out bytes.Buffer
		if !build(ctx, "diff", app, ovs, &out, &out) {
			return nil, fmt.Errorf("it does not build:\n%s", out.Bytes())
		}
	} else if !checkBuilt(ctx, "diff", app, ovs, stderr, true) {
		return nil, errReported
	}
	h, ok := load(ctx, "diff", app, cacheDir, host.Production, ovs, stderr)
	if !ok {
		return nil, errReported
	}
	defer h.Close(context.Background())
	return h.Document(), nil
}

// refDocument returns the document of rel (an app directory or a document
// file) as it is at ref in the repository around the current directory.
// An app is extracted from the ref into a temporary directory and built.
func refDocument(ctx context.Context, ref, rel, cacheDir string, ovs []config.Override, stderr io.Writer) (apidiff.Document, error) {
	top, err := git(ctx, "", "rev-parse", "--show-toplevel")
	if err != nil {
		return apidiff.Document{}, fmt.Errorf("%s:%s: %w", ref, rel, err)
	}
	top = strings.TrimSpace(top)
	if strings.HasPrefix(rel, "./") || strings.HasPrefix(rel, "../") || rel == "." || rel == ".." {
		fromHere, err := repoPath(ctx, rel)
		if err != nil {
			return apidiff.Document{}, fmt.Errorf("%s:%s: %w", ref, rel, err)
		}
		rel = fromHere
	}
	rel = path.Clean(strings.TrimSuffix(filepath.ToSlash(rel), "/"))
	name := ref + ":" + rel
	kind, err := git(ctx, top, "cat-file", "-t", ref+":"+rel)
	if err != nil {
		return apidiff.Document{}, fmt.Errorf("%s: %w", name, err)
	}
	switch strings.TrimSpace(kind) {
	case "blob":
		if err := documentExt(rel); err != nil {
			return apidiff.Document{}, fmt.Errorf("%s: %w", name, err)
		}
		data, err := git(ctx, top, "cat-file", "blob", ref+":"+rel)
		return apidiff.Document{Name: name, Data: []byte(data)}, err
	case "tree":
	default:
		return apidiff.Document{}, fmt.Errorf("%s is a %s, not an app directory or a document", name, strings.TrimSpace(kind))
	}
	dir, err := os.MkdirTemp("", "endpoints-diff-")
	if err != nil {
		return apidiff.Document{}, err
	}
	defer os.RemoveAll(dir)
	if err := extractRef(ctx, top, ref, dir); err != nil {
		return apidiff.Document{}, fmt.Errorf("%s: %w", name, err)
	}
	fmt.Fprintf(stderr, "endpoints diff: building %s in a temporary copy of %s\n", name, ref)
	data, err := appDocument(ctx, filepath.Join(dir, filepath.FromSlash(rel)), cacheDir, true, ovs, stderr)
	if err != nil && !errors.Is(err, errReported) {
		err = fmt.Errorf("%s: %w", name, err)
	}
	return apidiff.Document{Name: name, Data: data}, err
}

// repoPath returns p relative to the root of the git repository around
// the current directory, slash-separated.
func repoPath(ctx context.Context, p string) (string, error) {
	top, err := git(ctx, "", "rev-parse", "--show-toplevel")
	if err != nil {
		return "", err
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	// Both sides through the same symbolic links (/tmp may be one).
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	root := strings.TrimSpace(top)
	if real, err := filepath.EvalSymlinks(root); err == nil {
		root = real
	}
	rel, err := filepath.Rel(root, abs)
	if err != nil || !filepath.IsLocal(rel) && rel != "." {
		return "", fmt.Errorf("%s is outside the git repository %s", p, root)
	}
	return filepath.ToSlash(rel), nil
}

// extractRef writes the tree of ref (the whole repository, so that a Go
// app finds its module and what it imports) into dir, with git archive.
func extractRef(ctx context.Context, top, ref, dir string) error {
	cmd := exec.CommandContext(ctx, "git", "archive", "--format=tar", ref)
	cmd.Dir = top
	var errOut bytes.Buffer
	cmd.Stderr = &errOut
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("git archive: %w", err)
	}
	extractErr := untar(out, dir)
	_, _ = io.Copy(io.Discard, out)
	if err := cmd.Wait(); err != nil {
		return fmt.Errorf("git archive %s: %v: %s", ref, err, strings.TrimSpace(errOut.String()))
	}
	return extractErr
}

// untar writes the directories, files and symbolic links of a tar stream
// under dir, and nowhere else (os.Root).
func untar(r io.Reader, dir string) error {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	tr := tar.NewReader(r)
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		name := filepath.FromSlash(strings.TrimSuffix(hdr.Name, "/"))
		switch hdr.Typeflag {
		case tar.TypeDir:
			err = root.MkdirAll(name, 0o755)
		case tar.TypeReg:
			err = writeFileFrom(root, name, tr, hdr.FileInfo().Mode().Perm())
		case tar.TypeSymlink:
			if err = root.MkdirAll(filepath.Dir(name), 0o755); err == nil {
				err = root.Symlink(hdr.Linkname, name)
			}
		}
		if err != nil {
			return err
		}
	}
}

func writeFileFrom(root *os.Root, name string, r io.Reader, perm os.FileMode) error {
	if err := root.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		return err
	}
	f, err := root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, perm|0o600)
	if err != nil {
		return err
	}
	_, err = io.Copy(f, r)
	return errors.Join(err, f.Close())
}

// git runs git in dir ("" for the current directory) and returns its
// standard output; the error carries what git said.
func git(ctx context.Context, dir string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(errOut.String())
		if msg == "" {
			msg = err.Error()
		}
		return "", fmt.Errorf("git %s: %s", strings.Join(args, " "), msg)
	}
	return out.String(), nil
}
