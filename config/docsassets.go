package config

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// DocsScript is the file of the reference's build that the docs page
// loads from its assets ([Docs.Assets]), a URL or a directory: the
// standalone.js of the dist/browser folder of the npm package
// @scalar/api-reference.
const DocsScript = "standalone.js"

// AssetsDir is the directory of the docs page's local assets for an app
// in appDir: Assets joined to appDir unless absolute, "" when Assets is
// empty (the reference built into endpoints) or a URL. The error names
// the setting when the directory does not exist, is not one, or holds no
// [DocsScript] (the page would load nothing), and when it holds the app
// itself ("." or a directory above the app, named as such or through a
// symbolic link: both paths are compared with their links resolved),
// whose settings, modules and data its files would serve.
func (o Docs) AssetsDir(appDir string) (string, error) {
	a := o.Assets
	if a == "" || strings.Contains(a, "://") {
		return "", nil
	}
	dir := a
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(appDir, dir)
	}
	real, err := realPath(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return "", badSetting(File, "/openApi/docs/assets", "%q: %s does not exist; put the reference's build there (the %s of the dist/browser folder of the npm package @scalar/api-reference), or remove the setting for the reference built into endpoints", a, dir, DocsScript)
	} else if err != nil {
		return "", badSetting(File, "/openApi/docs/assets", "%q: %v", a, err)
	}
	if app, err := realPath(appDir); err == nil && holds(real, app) {
		return "", badSetting(File, "/openApi/docs/assets", "%q holds the app itself, whose settings, modules and data its files would serve: name a directory of the reference's files only, such as \"docs\"", a)
	}
	if st, err := os.Stat(real); err != nil || !st.IsDir() {
		return "", badSetting(File, "/openApi/docs/assets", "%q: %s is not a directory; name the directory holding the reference's %s", a, dir, DocsScript)
	}
	// As the page serves it: a regular file, not through a link that
	// leads out of the directory.
	f, err := os.OpenInRoot(dir, DocsScript)
	if err == nil {
		st, serr := f.Stat()
		f.Close()
		if serr == nil && !st.Mode().IsRegular() {
			err = errors.New("not a regular file")
		} else {
			err = serr
		}
	}
	if err != nil {
		return "", badSetting(File, "/openApi/docs/assets", "%q: %s holds no %s the page can load (%v); put the reference's build there (the dist/browser folder of the npm package @scalar/api-reference)", a, dir, DocsScript, err)
	}
	return dir, nil
}

// realPath is p absolute, its symbolic links resolved.
func realPath(p string) (string, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	return filepath.EvalSymlinks(abs)
}

// holds reports whether the directory dir is app or a directory above
// it; both are absolute and clean.
func holds(dir, app string) bool {
	rel, err := filepath.Rel(dir, app)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}
