package config

import (
	"time"

	"github.com/hookgate/hookgate/providers"
)

// Defaults that fit real agent traffic: requests with images and long
// histories run to several MiB, and a reasoning model can think for minutes
// before its first byte.
const (
	DefaultListen           = "127.0.0.1:8787"
	DefaultAdminListen      = "127.0.0.1:8788"
	DefaultMaxRequestBytes  = 32 << 20
	DefaultMaxResponseBytes = 32 << 20
	DefaultMaxEventBytes    = 8 << 20
	DefaultMaxStreamBytes   = 256 << 20
	DefaultConnectTimeout   = 10 * time.Second
	DefaultFirstByteTimeout = 10 * time.Minute
	DefaultIdleTimeout      = 5 * time.Minute
	DefaultHeartbeat        = 5 * time.Second
	DefaultSessionHeader    = "X-Session-Id"
	DefaultParentHeader     = "X-Parent-Session-Id"
	DefaultAgentHeader      = "X-Agent-Id"
	DefaultBlockTemplate    = "[hookgate] tool call {{tool}} blocked by {{hook}}: {{reason}}"
	DefaultSessionTTL       = 24 * time.Hour
	DefaultMaxRetries       = 2
	DefaultAuditQueue       = 4096
	DefaultAuditMaxWait     = 2 * time.Second
	DefaultAuditCaptureTTL  = 168 * time.Hour
	DefaultShutdownGrace    = 30 * time.Second
	// DefaultDrainDelay is a few of a load balancer's health-check
	// intervals: long enough for it to take the instance out.
	DefaultDrainDelay = 5 * time.Second
)

// Client connection defaults. The idle timeout is above common load
// balancers' (60 s, 75 s), so that none reuses a connection hookgate has
// just closed.
const (
	DefaultClientHeaderTimeout       = 10 * time.Second
	DefaultClientBodyProgressTimeout = 30 * time.Second
	DefaultClientIdleTimeout         = 90 * time.Second
	DefaultClientWriteStallTimeout   = 60 * time.Second
)

// Admission defaults, per instance. A stream costs a few goroutines and
// about 100 KiB of buffers; a pending approval a goroutine and a store
// read every poll; a hook execution up to a process (command hooks) or a
// script runtime. Raise them on a larger machine.
const (
	DefaultMaxConcurrentStreams = 1024
	DefaultMaxPendingApprovals  = 100
	DefaultMaxConcurrentHooks   = 512
	// DefaultMaxInflightRequestBytes bounds the request bodies held at
	// once, so that slow uploads cannot take the machine's memory.
	DefaultMaxInflightRequestBytes = 1 << 30
	// DefaultMaxConnections stays below common descriptor limits.
	DefaultMaxConnections = 10000
	// DefaultScriptMaxMemory is what one script execution may allocate:
	// policy scripts need kilobytes. The watchdog sees the process heap
	// (hooks/script_memory.go): a smaller budget catches a bomb sooner, a
	// larger one charges a stalled benign script less of a busy process's
	// garbage.
	DefaultScriptMaxMemory = 64 << 20
)

func applyDefaults(c *Config) {
	setString(&c.Listen, DefaultListen)
	setString(&c.Admin.Listen, DefaultAdminListen)
	setSize(&c.Limits.MaxRequestBytes, DefaultMaxRequestBytes)
	setSize(&c.Limits.MaxResponseBytes, DefaultMaxResponseBytes)
	setSize(&c.Limits.MaxEventBytes, DefaultMaxEventBytes)
	setSize(&c.Limits.MaxStreamBytes, DefaultMaxStreamBytes)
	setInt(&c.Limits.MaxConcurrentStreams, DefaultMaxConcurrentStreams)
	setInt(&c.Limits.MaxPendingApprovals, DefaultMaxPendingApprovals)
	setInt(&c.Limits.MaxConcurrentHooks, DefaultMaxConcurrentHooks)
	setSize(&c.Limits.MaxInflightRequestBytes, DefaultMaxInflightRequestBytes)
	setInt(&c.Limits.MaxConnections, DefaultMaxConnections)
	setSize(&c.Limits.ScriptMaxMemory, DefaultScriptMaxMemory)
	setDuration(&c.Timeouts.Connect, DefaultConnectTimeout)
	setDuration(&c.Timeouts.FirstByte, DefaultFirstByteTimeout)
	setDuration(&c.Timeouts.Idle, DefaultIdleTimeout)
	setDuration(&c.Timeouts.Heartbeat, DefaultHeartbeat)
	setDuration(&c.Timeouts.ShutdownGrace, DefaultShutdownGrace)
	if c.Timeouts.DrainDelay == nil {
		d := Duration(DefaultDrainDelay)
		c.Timeouts.DrainDelay = &d
	}
	setDuration(&c.Timeouts.ClientHeader, DefaultClientHeaderTimeout)
	setDuration(&c.Timeouts.ClientBodyProgress, DefaultClientBodyProgressTimeout)
	setDuration(&c.Timeouts.ClientIdle, DefaultClientIdleTimeout)
	setDuration(&c.Timeouts.ClientWriteStall, DefaultClientWriteStallTimeout)
	ic := &c.Interception
	setString(&ic.SessionHeader, DefaultSessionHeader)
	setString(&ic.ParentSessionHeader, DefaultParentHeader)
	setString(&ic.AgentHeader, DefaultAgentHeader)
	setString(&ic.BlockTemplate, DefaultBlockTemplate)
	setString(&ic.ContextPosition, "prepend")
	setString(&ic.OnBlock, "respond")
	if ic.MaxRetries == 0 {
		ic.MaxRetries = DefaultMaxRetries
	}
	setDuration(&ic.SessionTTL, DefaultSessionTTL)
	setString(&c.Store.Driver, "sqlite")
	setString(&c.Audit.OnFull, "block")
	if c.Audit.QueueSize == 0 {
		c.Audit.QueueSize = DefaultAuditQueue
	}
	setDuration(&c.Audit.MaxWait, DefaultAuditMaxWait)
	if c.Audit.CaptureEvents {
		setDuration(&c.Audit.CaptureTTL, DefaultAuditCaptureTTL)
	}
	setString(&c.Log.Level, "info")
	setString(&c.Log.Format, "text")
	for i := range c.Upstreams {
		setString(&c.Upstreams[i].Provider, providers.DefaultProvider)
	}
}

func setString(p *string, v string) {
	if *p == "" {
		*p = v
	}
}

func setInt(p *int, v int) {
	if *p == 0 {
		*p = v
	}
}

func setSize(p *ByteSize, v ByteSize) {
	if *p == 0 {
		*p = v
	}
}

func setDuration(p *Duration, v time.Duration) {
	if *p == 0 {
		*p = Duration(v)
	}
}
