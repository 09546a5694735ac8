package providers

import "fmt"

// frameEdits applies hookgate's decisions on one frame's calls the way
// every codec's EditFrame does: new arguments set in place, the removed
// calls taken out together, then the text appended. A codec gives its
// format's pieces: where each call sits, and the three edits.
type frameEdits struct {
	api        string             // for errors
	calls      int                // the frame's calls
	place      func(call int) int // where call sits in the frame
	setArgs    func(out []byte, place int, args []byte) ([]byte, error)
	remove     func(out []byte, places []int) ([]byte, error)
	appendText func(out []byte, text string) ([]byte, error)
}

func (fe frameEdits) apply(payload []byte, edits []CallEdit, text string) ([]byte, error) {
	out := append([]byte(nil), payload...)
	var remove []int
	var err error
	for _, e := range edits {
		if e.Call < 0 || e.Call >= fe.calls {
			return nil, fmt.Errorf("%s edit: call %d: %w", fe.api, e.Call, ErrNotFound)
		}
		switch place := fe.place(e.Call); {
		case e.Remove:
			remove = append(remove, place)
		case e.Args != nil:
			if out, err = fe.setArgs(out, place, e.Args); err != nil {
				return nil, err
			}
		}
	}
	if len(remove) > 0 {
		if out, err = fe.remove(out, remove); err != nil {
			return nil, err
		}
	}
	if text != "" {
		if out, err = fe.appendText(out, text); err != nil {
			return nil, err
		}
	}
	return out, nil
}
