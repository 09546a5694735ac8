package hooks

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// ReadConfinedFile reads name, a path relative to dir, and refuses every
// path that leads outside dir: an absolute path, a `..` that climbs out,
// a symbolic link that resolves outside (os.Root resolves links inside dir
// and refuses the others at the moment of opening, so a link swapped after
// a check cannot escape either). It reads regular files only, at most max
// bytes. Its errors name the path as given, never the file's content: a
// tenant must learn nothing of a host file from a load error.
func ReadConfinedFile(dir, name string, max int64) ([]byte, error) {
	if name == "" {
		return nil, errors.New("empty path")
	}
	if filepath.IsAbs(name) || filepath.VolumeName(name) != "" {
		return nil, fmt.Errorf("%s: an absolute path is refused; name a file relative to, and inside, this file's folder", name)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("%s: the folder cannot be opened", name)
	}
	defer root.Close()
	st, err := root.Stat(name)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, confinedCause(err))
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file", name)
	}
	if st.Size() > max {
		return nil, fmt.Errorf("%s: %d bytes exceeds %d", name, st.Size(), max)
	}
	f, err := root.Open(name)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, confinedCause(err))
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file", name)
	}
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, fmt.Errorf("%s: read failed", name)
	}
	if int64(len(b)) > max {
		return nil, fmt.Errorf("%s: larger than %d bytes", name, max)
	}
	return b, nil
}

// confinedCause says why a confined path could not be opened, without the
// *PathError's operation and path (which repeat the name). os.Root's
// escape error is not exported; its text is matched to say it plainly.
func confinedCause(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		if pe.Err.Error() == "path escapes from parent" {
			return errors.New("leads outside the folder (a `..` or a symbolic link); a tenant's file may name files inside its own folder only")
		}
		return pe.Err
	}
	return err
}
