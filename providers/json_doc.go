package providers

import (
	"errors"
	"fmt"
	"slices"
	"sync"
)

// jsonDoc is a validated, duplicate-free body with the end of every one of
// its objects and arrays, recorded by the validating pass (validateUnique).
// The views walk it with docObj and docArr, which skip a container by
// looking its end up instead of scanning it again: a view reads members
// three or four levels deep (messages[].tool_calls[].function.name), and
// skipping by scanning read the inner bytes once per level.
type jsonDoc struct {
	b []byte
	// starts are the offsets of the containers' opening brackets, in
	// order; ends[k] is the offset just past the container at starts[k].
	starts, ends []int
}

// parseDoc validates body as parseBody does (valid JSON, an object, no
// repeated keys) and indexes it, in one pass. The caller must hand the document back
// with release once it has copied out what it reads.
func parseDoc(body []byte, what string) (*jsonDoc, error) {
	d := docPool.Get().(*jsonDoc)
	d.b = body
	if err := checkBody(body, d, what); err != nil {
		d.release()
		return nil, err
	}
	return d, nil
}

// checkBody is parseBody's check, in one pass (validateUnique), with its
// errors in parseBody's order: not JSON, not an object, a repeated key.
func checkBody(body []byte, d *jsonDoc, what string) error {
	err := validateUnique(body, d)
	if err != nil && !errors.Is(err, ErrDuplicateKey) && err != errTooDeep {
		return fmt.Errorf("%s: %w", what, err)
	}
	if i := skipSpace(body, 0); i >= len(body) || body[i] != '{' {
		return fmt.Errorf("%s: not a JSON object: %w", what, ErrInvalidJSON)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}

// docPool keeps the documents' index slices between requests: a request
// body has tens to hundreds of containers, and growing the slices anew
// was most of a view's allocations.
var docPool = sync.Pool{New: func() any { return new(jsonDoc) }}

// maxPooledContainers bounds the index a pooled document keeps, so that
// one huge body does not pin its index for good.
const maxPooledContainers = 4096

// release hands the document back; neither it nor spans into it may be
// used after.
func (d *jsonDoc) release() {
	if cap(d.starts) > maxPooledContainers {
		return
	}
	d.b, d.starts, d.ends = nil, d.starts[:0], d.ends[:0]
	docPool.Put(d)
}

// span is a value of the document: b[off:end]. The zero span is an absent
// member (a present value is never empty).
type span struct{ off, end int }

// root is the document's top-level value.
func (d *jsonDoc) root() span {
	i := skipSpace(d.b, 0)
	e, _ := d.skip(i)
	return span{i, e}
}

// raw is the value's bytes, nil when absent.
func (d *jsonDoc) raw(v span) []byte {
	if v.end == 0 {
		return nil
	}
	return d.b[v.off:v.end:v.end]
}

// skip returns the end of the value starting at b[i].
func (d *jsonDoc) skip(i int) (int, bool) {
	b := d.b
	if i < len(b) && (b[i] == '{' || b[i] == '[') {
		if k, ok := slices.BinarySearch(d.starts, i); ok && d.ends[k] > i {
			return d.ends[k], true
		}
	}
	return skipValue(b, i)
}

// docObj walks the members of one object of a jsonDoc (objIter with
// indexed skips).
type docObj struct {
	d     *jsonDoc
	i     int
	first bool
	done  bool
}

// object starts an iteration; it yields nothing when v is not an object.
func (d *jsonDoc) object(v span) docObj {
	if v.end == 0 || d.b[v.off] != '{' {
		return docObj{done: true}
	}
	return docObj{d: d, i: v.off + 1, first: true}
}

// next returns the next member: its key as it appears between the quotes
// (escapes left in place) and its value.
func (it *docObj) next() (key []byte, v span, ok bool) {
	if it.done {
		return nil, span{}, false
	}
	b := it.d.b
	i := skipSpace(b, it.i)
	if i < len(b) && b[i] == '}' {
		it.done = true
		return nil, span{}, false
	}
	if !it.first {
		if i >= len(b) || b[i] != ',' {
			it.done = true
			return nil, span{}, false
		}
		i = skipSpace(b, i+1)
	}
	it.first = false
	if i >= len(b) || b[i] != '"' {
		it.done = true
		return nil, span{}, false
	}
	ke, kok := skipString(b, i)
	if !kok {
		it.done = true
		return nil, span{}, false
	}
	key = b[i+1 : ke-1]
	i = skipSpace(b, ke)
	if i >= len(b) || b[i] != ':' {
		it.done = true
		return nil, span{}, false
	}
	i = skipSpace(b, i+1)
	ve, vok := it.d.skip(i)
	if !vok {
		it.done = true
		return nil, span{}, false
	}
	it.i = ve
	return key, span{i, ve}, true
}

// docValues hands out what gjson's ForEach hands out as values: the
// elements of an array, the member values of an object, a scalar (null
// included) itself once, nothing for an absent member.
type docValues struct {
	obj    docObj
	d      *jsonDoc
	i      int
	first  bool
	scalar span
	kind   byte // '[', '{', 's' (scalar pending) or 0 (done)
}

// values starts a docValues over v.
func (d *jsonDoc) values(v span) docValues {
	switch {
	case v.end == 0:
		return docValues{}
	case d.b[v.off] == '[':
		return docValues{d: d, i: v.off + 1, first: true, kind: '['}
	case d.b[v.off] == '{':
		return docValues{obj: d.object(v), kind: '{'}
	}
	return docValues{scalar: v, kind: 's'}
}

func (it *docValues) next() (span, bool) {
	switch it.kind {
	case '{':
		_, v, ok := it.obj.next()
		return v, ok
	case 's':
		it.kind = 0
		return it.scalar, true
	case '[':
		b := it.d.b
		i := skipSpace(b, it.i)
		if i < len(b) && b[i] == ']' {
			it.kind = 0
			return span{}, false
		}
		if !it.first {
			if i >= len(b) || b[i] != ',' {
				it.kind = 0
				return span{}, false
			}
			i = skipSpace(b, i+1)
		}
		it.first = false
		ve, ok := it.d.skip(i)
		if !ok {
			it.kind = 0
			return span{}, false
		}
		it.i = ve
		return span{i, ve}, true
	}
	return span{}, false
}

// pick fills vals[i] with the member names[i] of the object v (absent when
// missing, or when v is not an object). Keys are matched by their decoded
// text; the first occurrence wins, as with gjson (parseDoc has refused
// repeats anyway).
func (d *jsonDoc) pick(v span, names []string, vals []span) {
	clear(vals)
	for it := d.object(v); ; {
		k, val, ok := it.next()
		if !ok {
			return
		}
		for i, name := range names {
			if vals[i].end == 0 && keyNamed(k, name) {
				vals[i] = val
				break
			}
		}
	}
}

// member is one member of the object v, absent when missing.
func (d *jsonDoc) member(v span, name string) span {
	for it := d.object(v); ; {
		k, val, ok := it.next()
		if !ok {
			return span{}
		}
		if keyNamed(k, name) {
			return val
		}
	}
}
