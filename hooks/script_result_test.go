package hooks

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/dop251/goja"
)

// exactResult reads a result the exact way: the sandbox's JSON.stringify,
// then strict decoding.
func exactResult(sb *sandbox, ret goja.Value) (Result, error) {
	out, err := sb.stringify(goja.Undefined(), ret)
	if err != nil {
		return Result{}, err
	}
	if goja.IsUndefined(out) {
		return Result{}, errors.New("no object")
	}
	return decodeScriptResult([]byte(out.String()))
}

// TestPlainResultAgreesWithExact: whenever the direct way reads a result,
// it reads what stringify and strict decoding read, errors included; and
// it gives up on every shape it does not know.
func TestPlainResultAgreesWithExact(t *testing.T) {
	sb, err := newSandbox()
	if err != nil {
		t.Fatal(err)
	}
	values := []string{`'allow'`, `'block'`, `'rewrite'`, `'timeout'`, `''`, `'Allow'`, `undefined`, `null`, `1`, `true`,
		`'a\u0000b'`, `'\ud800 lone'`, `'é ü 漢字 😀'`, `new String('allow')`, `{}`, `['a']`, `1n`, `Symbol('x')`}
	keys := []string{"decision", "reason", "additionalContext", "updatedResult", "updatedInput", "sideEffects", "Decision", "toJSON", "__proto__", "extra"}
	var exprs []string
	for _, k := range keys {
		for _, v := range values {
			exprs = append(exprs, fmt.Sprintf(`({%q: %s})`, k, v), fmt.Sprintf(`({decision: 'allow', %q: %s})`, k, v))
		}
	}
	exprs = append(exprs,
		`({decision: 'block', reason: 'no', additionalContext: 'c', updatedResult: 'r'})`,
		`({reason: 'r', decision: 'allow'})`,
		`({decision: 'allow', Reason: 'case'})`,
		`({decision: 'allow', reason: 'x'.repeat(70000)})`,
		`({decision: 'allow', reason: '"\\'.repeat(200000)})`,
		`({decision: 'allow', reason: 'x'.repeat(1 << 20)})`,
		`({decision: 'allow', updatedInput: {command: 'ls'}})`,
		`({decision: 'allow', sideEffects: ['a', 'b']})`,
		`({decision: 'allow', toJSON: function () { return {decision: 'block'}; }})`,
		`Object.create({toJSON: function () { return {decision: 'block'}; }})`,
		`Object.assign(Object.create(null), {decision: 'allow'})`,
		`(function () { class R { constructor() { this.decision = 'allow'; } } return new R(); })()`,
		`new Proxy({decision: 'allow'}, {})`,
		`new Proxy({decision: 'allow'}, {get: function () { return 'block'; }})`,
		`Object.defineProperty({decision: 'allow'}, 'reason', {get: function () { return 'from a getter'; }, enumerable: true})`,
		`Object.defineProperty({decision: 'allow'}, 'reason', {get: function () { throw new Error('getter'); }, enumerable: true})`,
		`Object.defineProperty({decision: 'allow'}, 'reason', {value: 5, enumerable: false})`,
		`Object.defineProperty({decision: 'allow'}, 'decision', {value: 'block', enumerable: false})`,
		`(function () { var o = {decision: 'allow'}; o[Symbol('s')] = 1; return o; })()`,
		`(function () { return arguments; })('allow')`,
		`Object.setPrototypeOf(new String('x'), Object.prototype)`,
		`(function () { var o = new String(''); Object.setPrototypeOf(o, Object.prototype); o.decision = 'allow'; return o; })()`,
		`(function () { var o = new Number(0); Object.setPrototypeOf(o, Object.prototype); o.decision = 'allow'; return o; })()`,
		`(function () { var o = new Boolean(false); Object.setPrototypeOf(o, Object.prototype); o.decision = 'allow'; return o; })()`,
		`Object.setPrototypeOf(new Number(1), Object.prototype)`,
		`Object.setPrototypeOf([1], Object.prototype)`,
		`Object.setPrototypeOf(new Date(0), Object.prototype)`,
		`new Error('allow')`,
		`(function () { var o = {decision: 'allow'}; o.self = o; return o; })()`,
		`Object.freeze({decision: 'allow', reason: 'frozen'})`,
		`function () {}`, `'allow'`, `undefined`, `null`, `[]`, `42`,
	)
	read := 0
	for _, expr := range exprs {
		ret, err := sb.rt.RunString("(" + expr + ")")
		if err != nil {
			t.Fatalf("%s: %v", expr, err)
		}
		got, ok, _, gotErr := sb.readPlainResult(ret)
		if !ok {
			continue
		}
		read++
		want, wantErr := exactResult(sb, ret)
		if (gotErr != nil) != (wantErr != nil) || !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\n direct %+v, %v\n exact  %+v, %v", expr, got, gotErr, want, wantErr)
		}
	}
	if read < 40 {
		t.Fatalf("the direct way read only %d results", read)
	}
	for _, expr := range []string{
		`({decision: 'allow', updatedInput: {command: 'ls'}})`,
		`({decision: 'allow', reason: null})`,
		`({Decision: 'allow'})`,
		`({decision: 'allow', toJSON: function () { return {decision: 'block'}; }})`,
		`Object.create({toJSON: function () { return {decision: 'block'}; }})`,
		`new Proxy({decision: 'allow'}, {})`,
		`Object.defineProperty({decision: 'allow'}, 'reason', {get: function () { throw new Error('getter'); }, enumerable: true})`,
		`({decision: 'allow', reason: 'x'.repeat(1 << 20)})`,
		`({decision: new String('allow')})`,
		`(function () { var o = new String(''); Object.setPrototypeOf(o, Object.prototype); o.decision = 'allow'; return o; })()`,
		`Object.defineProperty({}, 'decision', {get: function () { return 'allow'; }, enumerable: true})`,
	} {
		ret, err := sb.rt.RunString("(" + expr + ")")
		if err != nil {
			t.Fatal(err)
		}
		if _, ok, _, _ := sb.readPlainResult(ret); ok {
			t.Errorf("%s: read directly, want the exact way", expr)
		}
	}
}

// TestPlainResultThroughTheHandler: results read either way reach the
// caller the same, errors failing closed.
func TestPlainResultThroughTheHandler(t *testing.T) {
	for ret, want := range map[string]string{
		`{decision: 'block', reason: 'plain'}`:                           "block plain",
		`{decision: 'allow', updatedInput: {command: 'ls'}}`:             "allow ",
		`{decision: 'allow', reason: undefined, additionalContext: 'c'}`: "allow ",
		`{decision: 'maybe'}`:                                            "error",
		`{reason: 'no decision'}`:                                        "error",
		`{decision: 'allow', extra: 'x'}`:                                "error",
	} {
		h := engScript(t, "function handle(e) { return "+ret+"; }", 1)
		res, _, err := runScript(t, h, 5e9, &Event{})
		got := "error"
		if err == nil {
			got = string(res.Decision) + " " + res.Reason
		}
		if got != want {
			t.Errorf("%s: got %q (%v), want %q", ret, got, err, want)
		}
		if err != nil && !strings.Contains(err.Error(), "invalid result") {
			t.Errorf("%s: %v", ret, err)
		}
	}
}

// A getter in a result runs once, by JSON.stringify, never by the direct
// way too: a getter that throws on its first read fails the call closed
// (it used to be swallowed by the direct way, then read again, allowing),
// and one that counts its reads is read once.
func TestPlainResultRunsNoGetter(t *testing.T) {
	h := engScript(t, `function handle(e) {
		var n = 0;
		return Object.defineProperty({}, 'decision', {enumerable: true, get: function () {
			if (n++ === 0) { throw new Error('first read'); }
			return 'allow';
		}});
	}`, 1)
	if res, _, err := runScript(t, h, 5e9, &Event{}); err == nil {
		t.Errorf("decision %q, no error: the throwing getter was swallowed and read again", res.Decision)
	}
	h = engScript(t, `function handle(e) {
		var n = 0;
		return Object.defineProperty({decision: 'allow'}, 'reason', {enumerable: true, get: function () { n++; return 'reads: ' + n; }});
	}`, 1)
	res, _, err := runScript(t, h, 5e9, &Event{})
	if err != nil || res.Reason != "reads: 1" {
		t.Errorf("got %+v, %v: want the getter read once", res, err)
	}
}

// A boxed primitive dressed as a plain object is read the exact way, which
// refuses it (it stringifies as its primitive): never allowed.
func TestPlainResultRefusesBoxedPrimitives(t *testing.T) {
	for _, box := range []string{"new String('')", "new Number(0)", "new Boolean(false)"} {
		h := engScript(t, "function handle(e) { var o = "+box+"; Object.setPrototypeOf(o, Object.prototype); o.decision = 'allow'; return o; }", 1)
		if res, _, err := runScript(t, h, 5e9, &Event{}); err == nil {
			t.Errorf("%s: decision %q, no error: want the strict path's refusal", box, res.Decision)
		}
	}
}
