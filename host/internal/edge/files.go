package edge

import (
	"context"

	"github.com/wasmendpoints/endpoints/host/internal/appload"
	"github.com/wasmendpoints/endpoints/host/internal/engine"
)

// MiddlewareFile is one file of server/middleware as a version of the app
// holds it: the hash of its bytes, the middleware it serves, and why its
// latest bytes failed to load (then MW is the previous version's, or nil).
type MiddlewareFile struct {
	Hash appload.Hash
	MW   *Middleware
	Err  error
}

// LoadMiddlewareFiles loads the modules of server/middleware of the app
// in dir, with pools of poolSize instances, beside prev, the previous
// version's files (nil at the first load): a file whose bytes did not
// change keeps its middleware, a changed one loads anew, and one that
// fails keeps its previous version serving, as route modules do. It
// returns the files, never nil, and the middleware they serve in name
// order; rep hears of problems and of files added, changed or removed.
// The error is why server/middleware could not be listed.
func LoadMiddlewareFiles(ctx context.Context, e *engine.Engine, dir appload.Dir, poolSize int, prev map[string]*MiddlewareFile, rep appload.Reporter) (map[string]*MiddlewareFile, []*Middleware, error) {
	names, err := FindMiddleware(string(dir))
	if err != nil {
		return nil, nil, err
	}
	files := make(map[string]*MiddlewareFile, len(names))
	var served []*Middleware
	for _, f := range names {
		data, hash, err := dir.Read(f)
		old := prev[f]
		if err == nil && old != nil && old.Hash == hash {
			files[f] = old
			if old.MW != nil {
				served = append(served, old.MW)
			}
			if old.Err != nil {
				rep.Problem(old.Err, false)
			}
			continue
		}
		lm := &MiddlewareFile{Hash: hash}
		if err == nil {
			lm.MW, err = LoadMiddleware(ctx, e, data, f, poolSize)
		}
		if err != nil {
			lm.Err = err
			rep.Problem(err, true)
			if old != nil && old.MW != nil {
				lm.MW = old.MW // the previous version keeps serving
			}
		} else if prev != nil {
			rep.Note(f, true, old != nil)
		}
		files[f] = lm
		if lm.MW != nil {
			served = append(served, lm.MW)
		}
	}
	for f := range prev {
		if _, ok := files[f]; !ok {
			rep.Note(f, false, true)
		}
	}
	return files, served, nil
}
