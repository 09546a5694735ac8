package hooks

import (
	"fmt"
	"sync"

	"github.com/dop251/goja"
)

// Limits of the script sandbox. goja has no memory limit and checks an
// interrupt only between instructions, so a native built-in asked for a
// huge result (`'x'.repeat(2**30)`) would run to completion whatever the
// deadline: the sandbox caps the built-ins whose work or output is set by
// an argument or a length rather than by memory the script already holds.
const (
	// scriptMaxString caps the strings repeat, padStart, padEnd and join
	// may build (UTF-16 code units).
	scriptMaxString = 1 << 20
	// scriptMaxArray caps the length of arrays (or array-likes) the Array
	// built-ins, Array.from and Function.prototype.apply work on.
	scriptMaxArray = 1 << 20
	// scriptMaxCallStack bounds recursion.
	scriptMaxCallStack = 512
)

// sandboxSource prepares a fresh runtime before any script runs in it:
//
//   - removes eval (a global-scope eval could leave let bindings behind for
//     the next call) and the ArrayBuffer family (a constructor argument is
//     an allocation size);
//   - wraps the built-ins above with caps that throw a RangeError;
//   - makes a few prototype properties that scripts commonly shadow
//     (toString, constructor, name, message) assignable on instances even
//     though the prototypes are frozen;
//   - deep-freezes every intrinsic reachable from the global object and
//     the hidden ones (iterator, generator and async function prototypes),
//     and the global object itself, so prototype pollution and global
//     assignments fail instead of reaching the next call;
//   - returns JSON.parse and the capped JSON.stringify for the host (the
//     script cannot replace them: they are captured before it runs).
//
// It runs in strict mode, declares nothing at the top level and leaves no
// binding behind.
const sandboxSource = `(function (maxString, maxArray) {
'use strict';
var g = globalThis;
var O = Object, R = Reflect;
var apply = R.apply, ownKeys = R.ownKeys;
var defineProperty = O.defineProperty, getOwnPropertyDescriptor = O.getOwnPropertyDescriptor;
var getPrototypeOf = O.getPrototypeOf, freeze = O.freeze, hasOwn = O.prototype.hasOwnProperty;
var floor = Math.floor;
var RangeErr = RangeError, TypeErr = TypeError;
var isArray = Array.isArray;

function toLength(v) {
	var n = +v;
	if (n !== n || n <= 0) { return 0; }
	return floor(n);
}
function limit(what) { return new RangeErr('hookgate sandbox: ' + what + ' exceeds the limit'); }
function put(obj, name, fn) {
	defineProperty(obj, name, { value: fn, writable: true, enumerable: false, configurable: true });
}

delete g.eval;
['ArrayBuffer', 'SharedArrayBuffer', 'DataView', 'Int8Array', 'Uint8Array', 'Uint8ClampedArray',
 'Int16Array', 'Uint16Array', 'Int32Array', 'Uint32Array', 'Float32Array', 'Float64Array',
 'BigInt64Array', 'BigUint64Array', 'Atomics', 'WeakRef', 'FinalizationRegistry'].forEach(function (n) { delete g[n]; });
put(g, 'console', { log: function () {}, info: function () {}, warn: function () {}, error: function () {}, debug: function () {} });

var SP = String.prototype;
var repeat = SP.repeat, padStart = SP.padStart, padEnd = SP.padEnd;
put(SP, 'repeat', function repeat_(count) {
	if (this == null) { throw new TypeErr('String.prototype.repeat called on null or undefined'); }
	var s = '' + this, n = +count;
	if (n === n && n > 0 && s.length * floor(n) > maxString) { throw limit('string length'); }
	return apply(repeat, s, [n]);
});
put(SP, 'padStart', function padStart_(maxLength, fill) {
	if (this == null) { throw new TypeErr('String.prototype.padStart called on null or undefined'); }
	var n = toLength(maxLength);
	if (n > maxString) { throw limit('string length'); }
	return apply(padStart, '' + this, [n, fill]);
});
put(SP, 'padEnd', function padEnd_(maxLength, fill) {
	if (this == null) { throw new TypeErr('String.prototype.padEnd called on null or undefined'); }
	var n = toLength(maxLength);
	if (n > maxString) { throw limit('string length'); }
	return apply(padEnd, '' + this, [n, fill]);
});

// replace and replaceAll: a string replacement may be expanded once per
// match (and each $ in it up to the whole string); a function replacement
// is counted as it returns.
function guardReplace(orig) {
	return function (pattern, replacement) {
		if (this == null) { throw new TypeErr('String.prototype.replace called on null or undefined'); }
		var s = '' + this, r = replacement;
		if (typeof r === 'function') {
			var fn = r, total = 0;
			r = function () {
				var out = '' + apply(fn, undefined, arguments);
				total += out.length;
				if (total > maxString) { throw limit('string length'); }
				return out;
			};
		} else {
			r = '' + r;
			var dollars = r.split('$').length - 1;
			if (s.length + (s.length + 1) * (r.length + dollars * s.length) > maxString) {
				var global = pattern instanceof RegExp ? pattern.global : orig === replaceAll;
				if (global || s.length + r.length + dollars * s.length > maxString) { throw limit('string length'); }
			}
		}
		return apply(orig, s, [pattern, r]);
	};
}
var replace = SP.replace, replaceAll = SP.replaceAll;
put(SP, 'replace', guardReplace(replace));
put(SP, 'replaceAll', guardReplace(replaceAll));

function guardLength(orig) {
	return function () {
		if (this != null && toLength(O(this).length) > maxArray) { throw limit('array length'); }
		return apply(orig, this, arguments);
	};
}
var AP = Array.prototype;
ownKeys(AP).forEach(function (k) {
	var d = getOwnPropertyDescriptor(AP, k);
	if (k !== 'constructor' && typeof d.value === 'function') { put(AP, k, guardLength(d.value)); }
});
var concat = AP.concat;
put(AP, 'concat', function concat_() {
	var n = this == null ? 0 : toLength(O(this).length);
	for (var i = 0; i < arguments.length; i++) {
		var a = arguments[i];
		if (a != null && typeof a === 'object') { n += toLength(a.length); }
	}
	if (n > maxArray) { throw limit('array length'); }
	return apply(concat, this, arguments);
});
put(AP, 'join', function join(sep) {
	var o = O(this), len = toLength(o.length);
	if (len > maxArray) { throw limit('array length'); }
	var s = sep === undefined ? ',' : '' + sep, r = '';
	for (var i = 0; i < len; i++) {
		if (i > 0) { r += s; }
		var e = o[i];
		if (e != null) { r += typeof e === 'symbol' ? e.toString() : String(e); }
		if (r.length > maxString) { throw limit('string length'); }
	}
	return r;
});
var from = Array.from;
put(Array, 'from', function from_(items) {
	if (items != null && typeof items[Symbol.iterator] !== 'function' && toLength(O(items).length) > maxArray) {
		throw limit('array length');
	}
	return apply(from, this, arguments);
});
function guardArgs(orig, at) {
	return function () {
		var a = arguments[at];
		if (a != null && (typeof a === 'object' || typeof a === 'function') && toLength(a.length) > maxArray) {
			throw limit('argument list');
		}
		return apply(orig, this, arguments);
	};
}
put(Function.prototype, 'apply', guardArgs(Function.prototype.apply, 1));
put(R, 'apply', guardArgs(R.apply, 2));
put(R, 'construct', guardArgs(R.construct, 1));

// JSON.stringify walks arrays natively by their length; the replacer
// (JavaScript, so interruptible) refuses an array over the cap before the
// native walk starts on it.
var stringify = JSON.stringify, NewSet = Set;
function checkValue(v) {
	if (isArray(v) && toLength(v.length) > maxArray) { throw limit('array length'); }
}
function plainReplacer(k, v) { checkValue(v); return v; }
function safeStringify(value, replacer, space) {
	var fn = plainReplacer;
	if (typeof replacer === 'function') {
		fn = function (k, v) { var r = apply(replacer, this, [k, v]); checkValue(r); return r; };
	} else if (isArray(replacer)) {
		// A property list, emulated (keys follow the object's order).
		var allow = new NewSet();
		for (var i = 0; i < replacer.length; i++) {
			var x = replacer[i];
			if (typeof x === 'string' || typeof x === 'number' || x instanceof String || x instanceof Number) { allow.add('' + x); }
		}
		fn = function (k, v) {
			checkValue(v);
			return k === '' || isArray(this) || allow.has(k) ? v : undefined;
		};
	}
	return stringify(value, fn, space);
}
put(JSON, 'stringify', safeStringify);
var json = { parse: JSON.parse, stringify: safeStringify };

function enableOverride(obj, key) {
	var d = getOwnPropertyDescriptor(obj, key);
	if (!d || !('value' in d) || !d.configurable) { return; }
	var value = d.value;
	defineProperty(obj, key, {
		get: function () { return value; },
		set: function (v) {
			if (this === obj) { throw new TypeErr('Cannot assign to property ' + String(key) + ' of a frozen built-in'); }
			defineProperty(this, key, { value: v, writable: true, enumerable: true, configurable: true });
		},
		enumerable: d.enumerable,
		configurable: false
	});
}
ownKeys(O.prototype).forEach(function (k) { enableOverride(O.prototype, k); });
[Error, EvalError, RangeError, ReferenceError, SyntaxError, TypeError, URIError].forEach(function (E) {
	['name', 'message', 'constructor', 'toString'].forEach(function (k) { enableOverride(E.prototype, k); });
});
['constructor', 'toString', 'push'].forEach(function (k) { enableOverride(AP, k); });
['constructor', 'toString'].forEach(function (k) { enableOverride(Function.prototype, k); });
['constructor', 'then', 'catch', 'finally'].forEach(function (k) { enableOverride(Promise.prototype, k); });

var roots = [g,
	getPrototypeOf(function* () {}),
	getPrototypeOf(async function () {}),
	getPrototypeOf([][Symbol.iterator]()),
	getPrototypeOf(new Map()[Symbol.iterator]()),
	getPrototypeOf(new Set()[Symbol.iterator]()),
	getPrototypeOf(''[Symbol.iterator]()),
	getPrototypeOf(/x/[Symbol.matchAll](''))];
try { roots.push(getPrototypeOf(Function('return async function* () {}')())); } catch (e) { /* not supported */ }
var seen = new Set(), stack = roots.slice();
while (stack.length > 0) {
	var o = stack.pop();
	if (o === null || (typeof o !== 'object' && typeof o !== 'function') || seen.has(o)) { continue; }
	seen.add(o);
	stack.push(getPrototypeOf(o));
	var keys = ownKeys(o);
	for (var i = 0; i < keys.length; i++) {
		var d = getOwnPropertyDescriptor(o, keys[i]);
		if (d === undefined) { continue; }
		if (hasOwn.call(d, 'value')) { stack.push(d.value); } else { stack.push(d.get, d.set); }
	}
	freeze(o);
}
return json;
})`

// sandboxProgram is compiled once for every runtime.
var sandboxProgram = sync.OnceValues(func() (*goja.Program, error) {
	return goja.Compile("hookgate-sandbox.js", sandboxSource, true)
})

// sandbox is a runtime prepared by sandboxSource, and what the host keeps
// of it from before any script ran.
type sandbox struct {
	rt *goja.Runtime
	// parse and stringify are JSON.parse and the capped JSON.stringify.
	parse, stringify goja.Callable
	// objectProto is Object.prototype, by which the host recognises a
	// plain object a script returns.
	objectProto *goja.Object
	// ownDescriptor is Object.getOwnPropertyDescriptor, by which the host
	// reads a result's members without running a getter.
	ownDescriptor goja.Callable
}

// newSandbox returns a runtime prepared by sandboxSource.
func newSandbox() (*sandbox, error) {
	prg, err := sandboxProgram()
	if err != nil {
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	rt := goja.New()
	rt.SetMaxCallStackSize(scriptMaxCallStack)
	sb := &sandbox{rt: rt}
	if err := installShell(rt, sb); err != nil {
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	v, err := rt.RunProgram(prg)
	if err != nil {
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	setup, ok := goja.AssertFunction(v)
	if !ok {
		return nil, fmt.Errorf("sandbox: setup is not a function")
	}
	res, err := setup(goja.Undefined(), rt.ToValue(scriptMaxString), rt.ToValue(scriptMaxArray))
	if err != nil {
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	obj := res.ToObject(rt)
	parse, ok1 := goja.AssertFunction(obj.Get("parse"))
	stringify, ok2 := goja.AssertFunction(obj.Get("stringify"))
	if !ok1 || !ok2 {
		return nil, fmt.Errorf("sandbox: JSON functions missing")
	}
	proto := rt.NewObject().Prototype()
	if proto == nil {
		return nil, fmt.Errorf("sandbox: Object.prototype missing")
	}
	describe, ok := goja.AssertFunction(rt.Get("Object").ToObject(rt).Get("getOwnPropertyDescriptor"))
	if !ok {
		return nil, fmt.Errorf("sandbox: Object.getOwnPropertyDescriptor missing")
	}
	sb.parse, sb.stringify, sb.objectProto, sb.ownDescriptor = parse, stringify, proto, describe
	return sb, nil
}
