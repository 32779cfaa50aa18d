package guestbuild

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	assdk "github.com/wasmendpoints/endpoints/guest-sdk/assemblyscript"
)

// ascDriver compiles the jobs of its first argument (a JSON file: the asc
// directory's dist/asc.js, and each job's asc arguments) one after the
// other in this one Node.js process, printing one JSON line per job. asc's
// own bin/asc.js starts Node twice per route (it re-executes itself with
// --enable-source-maps) and compiles asc's JavaScript anew each time: in
// one process, the second and later routes find it compiled.
//
// Each line also lists what the job asked of the file system: every file
// asc tried to read (found or not: the sources, their relative imports
// tried as x.ts and x/index.ts, the packages tried in each node_modules,
// asconfig.json) and every directory it listed (--lib). asc reads through
// the readFile and listFiles of its API, which the driver implements as
// asc's own defaults do (path.resolve(baseDir, name) read as UTF-8, null
// when it cannot be read; path.join(baseDir, dir)'s .ts files but .d.ts).
const ascDriver = `import { readFileSync, readdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
const { asc, jobs } = JSON.parse(readFileSync(process.argv[2], "utf8"));
const { main } = await import(pathToFileURL(asc).href);
const sourceFile = /^(?!.*\.d\.ts$).*\.ts$/;
for (let i = 0; i < jobs.length; i++) {
  let out = "";
  const sink = { write(chunk) { out += typeof chunk === "string" ? chunk : Buffer.from(chunk).toString(); return true; } };
  const files = new Set(), dirs = new Set();
  const readFile = (name, baseDir) => {
    const p = resolve(baseDir, name);
    files.add(p);
    try { return readFileSync(p, "utf8"); } catch { return null; }
  };
  const listFiles = (dir, baseDir) => {
    const p = join(baseDir, dir);
    dirs.add(resolve(p));
    try { return readdirSync(p).filter(f => sourceFile.test(f)); } catch { return null; }
  };
  let ok = false;
  try {
    const { error } = await main(jobs[i], { stdout: sink, stderr: sink, readFile, listFiles });
    ok = !error;
    if (error && !out.includes(String(error.message))) out += String(error.message);
  } catch (e) {
    out += String(e && e.stack || e);
  }
  process.stdout.write(JSON.stringify({ job: i, ok, output: out, files: [...files], dirs: [...dirs] }) + "\n");
}
`

// ascJob is one route of an AssemblyScript batch.
type ascJob struct {
	src, out string
}

// assemblyScriptBatch compiles jobs with one Node.js process, as
// [AssemblyScript] compiles one route (same compiler, flags, SDK and
// atomic replacement of out), calling done after each route with its
// error (nil when built), how long it took and what it read (the files
// asc tried, found or not, and the directories it listed, absolute; the
// copy of the SDK the batch supplies left out: the SDK is part of every
// key). It returns an error without calling done when the batch cannot
// start.
func assemblyScriptBatch(ctx context.Context, appDir string, jobs []ascJob, done func(i int, took time.Duration, r reads, err error)) error {
	const what = "compile AssemblyScript routes"
	appDir, err := filepath.Abs(appDir)
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	asc, err := findASC(ctx, appDir)
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	real, err := filepath.EvalSymlinks(asc)
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	dist := filepath.Join(filepath.Dir(filepath.Dir(real)), "dist", "asc.js")
	if _, err := os.Stat(dist); err != nil {
		return fmt.Errorf("%s: the compiler's API: %w", what, err)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		return fmt.Errorf("%s: %w (asc runs on Node.js; on Debian: apt-get install nodejs)", what, err)
	}
	work, err := os.MkdirTemp("", "endpoints-asc-")
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	defer os.RemoveAll(work)
	var extra []string
	if !hasSDK(appDir) {
		if err := writeFS(assdk.Files, filepath.Join(work, "sdk", filepath.FromSlash(assdk.Package))); err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
		extra = []string{"--path", filepath.Join(work, "sdk")}
	}
	spec := struct {
		ASC  string     `json:"asc"`
		Jobs [][]string `json:"jobs"`
	}{ASC: dist}
	tmps := make([]string, len(jobs))
	for i, j := range jobs {
		src, err := filepath.Abs(j.src)
		if err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
		if err := os.MkdirAll(filepath.Dir(j.out), 0o755); err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
		f, err := os.CreateTemp(filepath.Dir(j.out), "."+filepath.Base(j.out)+".*.tmp")
		if err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
		f.Close()
		defer os.Remove(f.Name()) // a no-op after the rename
		if tmps[i], err = filepath.Abs(f.Name()); err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
		args := append([]string{src, "-o", tmps[i]}, ascFlags...)
		spec.Jobs = append(spec.Jobs, append(args, extra...))
	}
	specJSON, _ := json.Marshal(spec)
	driver, specFile := filepath.Join(work, "driver.mjs"), filepath.Join(work, "jobs.json")
	if err := os.WriteFile(driver, []byte(ascDriver), 0o644); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if err := os.WriteFile(specFile, specJSON, 0o644); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	cmd := exec.CommandContext(ctx, node, driver, specFile)
	cmd.Dir = appDir // asc resolves ~lib/ packages from its working directory
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	reported := make([]bool, len(jobs))
	lines := bufio.NewScanner(stdout)
	lines.Buffer(make([]byte, 64<<10), 16<<20)
	for lines.Scan() {
		var r struct {
			Job    int      `json:"job"`
			OK     bool     `json:"ok"`
			Output string   `json:"output"`
			Files  []string `json:"files"`
			Dirs   []string `json:"dirs"`
		}
		if json.Unmarshal(lines.Bytes(), &r) != nil || r.Job < 0 || r.Job >= len(jobs) || reported[r.Job] {
			continue // not a line of the driver's
		}
		reported[r.Job] = true
		j := jobs[r.Job]
		var err error
		switch {
		case !r.OK:
			err = fmt.Errorf("compile AssemblyScript route %s: asc failed:\n%s", j.src, strings.TrimSpace(r.Output))
		default:
			err = os.Chmod(tmps[r.Job], 0o644)
			if err == nil {
				err = os.Rename(tmps[r.Job], j.out)
			}
			if err != nil {
				err = fmt.Errorf("compile AssemblyScript route %s: %w", j.src, err)
			}
		}
		done(r.Job, time.Since(start), ascReads(r.Files, r.Dirs, work), err)
		start = time.Now()
	}
	waitErr := cmd.Wait()
	for i, j := range jobs {
		if reported[i] {
			continue
		}
		// The process ended before this route: say why.
		err := ctx.Err()
		if err == nil {
			err = errors.Join(waitErr, errors.New(strings.TrimSpace(stderr.String())))
		}
		done(i, time.Since(start), reads{}, fmt.Errorf("compile AssemblyScript route %s: node %s ended before it: %w", j.src, driver, err))
	}
	return nil
}

// ascReads is the record of what an asc job read: files and dirs clean,
// sorted, those under the batch's own directory (work: the SDK it
// supplied) left out.
func ascReads(files, dirs []string, work string) reads {
	keep := func(paths []string) []string {
		var out []string
		for _, p := range paths {
			p = filepath.Clean(p)
			if filepath.IsAbs(p) && p != work && !strings.HasPrefix(p, work+string(filepath.Separator)) {
				out = append(out, p)
			}
		}
		slices.Sort(out)
		return slices.Compact(out)
	}
	return reads{Files: keep(files), Dirs: keep(dirs)}
}
