package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os/exec"
	"path/filepath"
	"slices"
	"time"

	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/internal/glob"
	"github.com/wasmendpoints/endpoints/internal/guestbuild"
	"github.com/wasmendpoints/endpoints/internal/testhook"
)

// The app's own build step: the "build" member of endpoints.json (see
// config.Build), run by `endpoints build` after the built-in builds and
// again under `endpoints dev` whenever a file matching one of its watch
// patterns is saved.

// commandWaitDelay bounds how long a run waits, once the command has ended
// or was stopped, for children it left holding its output open.
const commandWaitDelay = 2 * time.Second

// commandRun is one run of the app's build command.
type commandRun struct {
	Command string
	// Changed lists the saved files that caused the run, relative to the
	// app; empty for the run at start.
	Changed []string
	Took    time.Duration
	// Output is what the command printed, standard output and error
	// interleaved; kept by dev to show when the run fails.
	Output []byte
	Err    error
}

// runBuildCommand runs command through `sh -c` in the app directory, with
// the environment of this process, its output going to stdout and stderr.
// The error names the command and its exit code.
func runBuildCommand(ctx context.Context, app, command string, stdout, stderr io.Writer) error {
	cmd := exec.CommandContext(ctx, "sh", "-c", command)
	cmd.Dir = app
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.WaitDelay = commandWaitDelay
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return nil
	case ctx.Err() != nil:
		return fmt.Errorf("build command `%s` (%s /build/command) was stopped: %w", command, config.File, ctx.Err())
	case errors.As(err, &exit) && exit.ExitCode() >= 0:
		return fmt.Errorf("build command `%s` (%s /build/command) exited with code %d", command, config.File, exit.ExitCode())
	case errors.As(err, &exit):
		return fmt.Errorf("build command `%s` (%s /build/command) ended by %s", command, config.File, exit.ProcessState)
	}
	return fmt.Errorf("build command `%s` (%s /build/command): %w", command, config.File, err)
}

// buildStep runs the app's build command for `endpoints build` (or the
// command name, which builds first, that its errors name), its output
// streamed with a "  | " prefix, then prints one line saying how long it
// took; then it writes the contract sections into the route modules the
// command wrote, as the built-in builds do (a module that does not load
// fails the build, as it would fail the app's start). false when it
// failed, with the reason on stderr.
func buildStep(ctx context.Context, name, app, command string, ovs []config.Override, stdout, stderr io.Writer) bool {
	before, err := routeModules(app)
	if err != nil {
		fmt.Fprintf(stderr, "endpoints %s: %v\n", name, err)
		return false
	}
	out, errOut := &prefixWriter{w: stdout, prefix: "  | "}, &prefixWriter{w: stderr, prefix: "  | "}
	start := time.Now()
	err = runBuildCommand(ctx, app, command, out, errOut)
	out.end()
	errOut.end()
	if err != nil {
		fmt.Fprintf(stderr, "\nendpoints %s: %v\n", name, err)
		return false
	}
	fmt.Fprintf(stdout, "ran `%s` in %s\n", command, time.Since(start).Round(time.Millisecond))
	var modules []guestbuild.Source
	after, err := routeModules(app)
	if err == nil {
		modules = writtenModules(before, after)
		err = embedContracts(ctx, app, ovs, modules)
	}
	if err != nil {
		fmt.Fprintf(stderr, "\nendpoints %s: after `%s`: writing the contract sections of the modules it built: %v\n", name, command, err)
		return false
	}
	if len(modules) > 0 {
		fmt.Fprintf(stdout, "wrote the contract sections of %d module(s) the command built\n", len(modules))
	}
	return true
}

// routeModules maps each route module of the app (a .wasm file under
// server/api or server/routes, relative to the app) to its modification
// time and size, so that what a build command wrote can be told from what
// it left alone.
func routeModules(app string) (map[string]fileStamp, error) {
	out := map[string]fileStamp{}
	for _, root := range []string{"server/api", "server/routes"} {
		dir := filepath.Join(app, filepath.FromSlash(root))
		err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) && p == dir {
					return filepath.SkipDir
				}
				return err
			}
			if !d.Type().IsRegular() || filepath.Ext(p) != ".wasm" {
				return nil
			}
			info, err := d.Info()
			if err != nil {
				return err
			}
			rel, err := filepath.Rel(app, p)
			if err != nil {
				return err
			}
			out[filepath.ToSlash(rel)] = fileStamp{info.ModTime(), info.Size()}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// fileStamp is what tells that a file was rewritten.
type fileStamp struct {
	mod  time.Time
	size int64
}

// writtenModules lists, sorted, the route modules of after that are not
// in before or changed since.
func writtenModules(before, after map[string]fileStamp) []guestbuild.Source {
	var out []guestbuild.Source
	for _, m := range slices.Sorted(maps.Keys(after)) {
		if old, ok := before[m]; !ok || !old.mod.Equal(after[m].mod) || old.size != after[m].size {
			out = append(out, guestbuild.Source{Path: m, Module: m})
		}
	}
	return out
}

// prefixWriter writes prefix at the start of every line it passes on to w.
// One goroutine writes to it at a time.
type prefixWriter struct {
	w      io.Writer
	prefix string
	mid    bool // the last byte written was not a newline
}

func (p *prefixWriter) Write(b []byte) (int, error) {
	n := len(b)
	var buf []byte
	for len(b) > 0 {
		if !p.mid {
			buf = append(buf, p.prefix...)
			p.mid = true
		}
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			buf = append(buf, b...)
			break
		}
		buf = append(buf, b[:i+1]...)
		b = b[i+1:]
		p.mid = false
	}
	if _, err := p.w.Write(buf); err != nil {
		return 0, err
	}
	return n, nil
}

// end finishes a last line that had no newline.
func (p *prefixWriter) end() {
	if p.mid {
		_, _ = io.WriteString(p.w, "\n")
		p.mid = false
	}
}

// watched reports whether rel matches one of the patterns.
func watched(patterns []string, rel string) bool {
	return slices.ContainsFunc(patterns, func(p string) bool { return glob.Match(p, rel) })
}

// watchBuildCommand reruns the app's build command under `endpoints dev`
// when files matching its watch patterns are saved: once a burst of saves
// has been quiet for sourceQuiet, never two runs at once (saves during a
// run start another when it ends). A failed run is reported and changes
// nothing, so the last good modules keep serving; the modules a good run
// writes are reloaded by Host.Watch. A valid edit of the command or the
// patterns in endpoints.json takes effect at once; devLoop starts this
// only when the app has both at start. Files it watches saved after since
// (when the start's run began) but before the watches were set up sent no
// event: they start a run at once.
func watchBuildCommand(ctx context.Context, app string, cfg config.Build, ovs []config.Override, c *console, since time.Time) error {
	w, err := watchApp(app)
	if err != nil {
		return err
	}
	defer w.Close()
	testhook.Watching(ctx, "build command") // tests wait for this, not for a time
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	changed := map[string]bool{} // saved since the last run began
	for _, rel := range w.SavedSince(since) {
		if watched(cfg.Watch, rel) {
			changed[rel] = true
			timer.Reset(sourceQuiet)
		}
	}
	running := false
	done := make(chan commandRun, 1)
	for {
		select {
		case <-ctx.Done():
			return nil
		case err := <-w.Errors:
			c.event(true, map[string]any{"event": "error", "error": err.Error()}, "watching the build command's sources: "+err.Error())
		case ev := <-w.Events:
			for _, rel := range w.Changed(ev) {
				if rel == config.File {
					if next, err := config.Load(app, ovs...); err == nil {
						cfg = next.Build // a bad file is reported by Host.Watch
					}
					continue
				}
				if cfg.Command == "" || !watched(cfg.Watch, rel) {
					continue
				}
				changed[rel] = true
				if !running {
					timer.Reset(sourceQuiet)
				}
			}
		case <-timer.C:
			if running || len(changed) == 0 {
				continue
			}
			files := slices.Sorted(func(yield func(string) bool) {
				for f := range changed {
					if !yield(f) {
						return
					}
				}
			})
			clear(changed)
			running = true
			go func(command string) {
				var out bytes.Buffer
				start := time.Now()
				err := runBuildCommand(ctx, app, command, &out, &out)
				done <- commandRun{Command: command, Changed: files, Took: time.Since(start), Output: out.Bytes(), Err: err}
			}(cfg.Command)
		case r := <-done:
			running = false
			if ctx.Err() == nil {
				c.ran(r)
			}
			if len(changed) > 0 {
				timer.Reset(sourceQuiet)
			}
		}
	}
}
