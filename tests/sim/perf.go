package main

// Realtime datastore performance counters of a host.
//
// 0.24.2's QueryPerf makes samples from canned data, has none for the
// datastore counters of a HostSystem (so every value is 0, and zeros are
// dropped from the XML), returns samples newest first, none at all without
// maxSample, and echoes instance "*" instead of expanding it. QueryPerfCounter
// dereferences a nil response and drops the connection.
//
// The lab answers QueryPerf in the front whenever a query spec asks a
// HostSystem for a datastore counter (or for no counter in particular):
// samples at the 20 s boundaries (newest last, maxSample honoured, 1 when
// unset, startTime exclusive, endTime inclusive, one hour of history), and
// one PerfMetricIntSeries per counter and datastore the host mounts, whose
// instance is the DATASTORE'S MOREF ID (e.g. datastore-61) for instance "*";
// an instance naming one datastore by moref id or by the uuid at the end of
// its summary.url selects it (and is echoed). The values never are 0: an
// idle datastore shows a few I/Os per second and 1-3 ms, and each guest
// process (guest.go) running during the sample on a VM of that host with
// files on that datastore adds about 2000 reads/s and 1500 writes/s of 4 KiB
// and a few ms of latency. Values depend only on host, datastore, time and
// those processes, so two queries agree on a sample. Other counters and
// entities of the same call come from the simulator's canned data, put in
// the same sample order, zeros written out. format "csv" gives
// PerfEntityMetricCSV.
//
// With -perf-empty the datastore series are left out (an entity left
// with none is left out too): a vCenter whose statistics level or
// interval keeps no datastore samples.
//
// The PerformanceManager is wrapped (same moref) to give QueryPerfCounter
// and QueryPerfCounterByLevel real answers, and QueryAvailablePerfMetric
// one instance per datastore of a host (0.24.2 lists only the first).

import (
	"encoding/binary"
	"flag"
	"fmt"
	"hash/fnv"
	"io"
	"log"
	"math/rand"
	"net/http"
	"strings"
	"time"

	"github.com/vmware/govmomi/simulator"
	"github.com/vmware/govmomi/vim25/methods"
	"github.com/vmware/govmomi/vim25/soap"
	"github.com/vmware/govmomi/vim25/types"
)

// dsCounter is one of the datastore counters the lab generates.
type dsCounter int

const (
	dsReadOps dsCounter = iota
	dsWriteOps
	dsReadKB
	dsWriteKB
	dsReadLatency
	dsWriteLatency
)

// dsCounterNames: datastore.<name>.average in PerformanceManager.perfCounter.
var dsCounterNames = map[string]dsCounter{
	"numberReadAveraged":  dsReadOps,
	"numberWriteAveraged": dsWriteOps,
	"read":                dsReadKB,
	"write":               dsWriteKB,
	"totalReadLatency":    dsReadLatency,
	"totalWriteLatency":   dsWriteLatency,
}

type perfStats struct {
	l     *lab
	g     *guestOps
	pm    *labPerfManager
	ref   types.ManagedObjectReference
	kinds map[int32]dsCounter // counter key -> kind
	order []int32             // the keys, in dsCounter order
	empty bool                // -perf-empty: no datastore samples
}

func (p *perfStats) flags(fs *flag.FlagSet) {
	fs.BoolVar(&p.empty, "perf-empty", false,
		"QueryPerf gives no samples of a host's datastore counters (a vCenter that keeps none)")
}

func (p *perfStats) setup(l *lab, g *guestOps) error {
	p.l, p.g = l, g
	ref := l.client.ServiceContent.PerfManager
	if ref == nil {
		return nil
	}
	orig, ok := simulator.Map.Get(*ref).(*simulator.PerformanceManager)
	if !ok {
		return fmt.Errorf("PerformanceManager %s not found", ref.Value)
	}
	p.ref = *ref
	p.pm = &labPerfManager{PerformanceManager: *orig, stats: p}
	simulator.Map.Put(p.pm)

	p.kinds = make(map[int32]dsCounter)
	p.order = make([]int32, len(dsCounterNames))
	for _, c := range p.pm.PerfCounter {
		if c.GroupInfo.GetElementDescription().Key != "datastore" || c.RollupType != types.PerfSummaryTypeAverage {
			continue
		}
		if kind, ok := dsCounterNames[c.NameInfo.GetElementDescription().Key]; ok {
			p.kinds[c.Key] = kind
			p.order[kind] = c.Key
		}
	}
	if len(p.kinds) != len(dsCounterNames) {
		log.Printf("perf: only %d of the %d datastore counters found in perfCounter", len(p.kinds), len(dsCounterNames))
	}
	l.beforeCall(p.intercept)
	return nil
}

// labPerfManager fixes the PerformanceManager methods 0.24.2 gets wrong.
type labPerfManager struct {
	simulator.PerformanceManager
	stats *perfStats
}

func (m *labPerfManager) counter(key int32) (types.PerfCounterInfo, bool) {
	for _, c := range m.PerfCounter {
		if c.Key == key {
			return c, true
		}
	}
	return types.PerfCounterInfo{}, false
}

// QueryPerfCounter answers the counters asked for (0.24.2 panics).
func (m *labPerfManager) QueryPerfCounter(ctx *simulator.Context, req *types.QueryPerfCounter) soap.HasFault {
	body := &methods.QueryPerfCounterBody{Res: &types.QueryPerfCounterResponse{}}
	for _, id := range req.CounterId {
		c, ok := m.counter(id)
		if !ok {
			body.Res = nil
			body.Fault_ = simulator.Fault("A specified parameter was not correct: counterId", &types.InvalidArgument{InvalidProperty: "counterId"})
			return body
		}
		body.Res.Returnval = append(body.Res.Returnval, c)
	}
	return body
}

// QueryPerfCounterByLevel returns the counters of level <= level
// (missing in 0.24.2).
func (m *labPerfManager) QueryPerfCounterByLevel(ctx *simulator.Context, req *types.QueryPerfCounterByLevel) soap.HasFault {
	body := &methods.QueryPerfCounterByLevelBody{Res: &types.QueryPerfCounterByLevelResponse{}}
	if req.Level < 1 || req.Level > 4 {
		body.Res = nil
		body.Fault_ = simulator.Fault("A specified parameter was not correct: level", &types.InvalidArgument{InvalidProperty: "level"})
		return body
	}
	for _, c := range m.PerfCounter {
		if c.Level <= req.Level {
			body.Res.Returnval = append(body.Res.Returnval, c)
		}
	}
	return body
}

// QueryAvailablePerfMetric lists a host's per-datastore metrics for every
// datastore it mounts (0.24.2: the first only, and it panics without one).
func (m *labPerfManager) QueryAvailablePerfMetric(ctx *simulator.Context, req *types.QueryAvailablePerfMetric) soap.HasFault {
	host, ok := simulator.Map.Get(req.Entity).(*simulator.HostSystem)
	if !ok {
		return m.PerformanceManager.QueryAvailablePerfMetric(ctx, req)
	}
	dss := hostDatastores(host)
	if len(dss) == 0 {
		return &methods.QueryAvailablePerfMetricBody{Res: &types.QueryAvailablePerfMetricResponse{}}
	}
	body, ok := m.PerformanceManager.QueryAvailablePerfMetric(ctx, req).(*methods.QueryAvailablePerfMetricBody)
	if !ok || body.Res == nil {
		return body
	}
	var out []types.PerfMetricId
	for _, id := range body.Res.Returnval {
		out = append(out, id)
		if id.Instance == dss[0].Value {
			for _, ds := range dss[1:] {
				out = append(out, types.PerfMetricId{CounterId: id.CounterId, Instance: ds.Value})
			}
		}
	}
	body.Res.Returnval = out
	return body
}

func hostDatastores(host *simulator.HostSystem) []types.ManagedObjectReference {
	var dss []types.ManagedObjectReference
	simulator.Map.WithLock(host, func() { dss = append(dss, host.Datastore...) })
	return dss
}

// ours reports whether the lab generates (some of) a spec's series.
func (p *perfStats) ours(qs *types.PerfQuerySpec) bool {
	if qs.Entity.Type != "HostSystem" {
		return false
	}
	if len(qs.MetricId) == 0 {
		return true
	}
	for _, id := range qs.MetricId {
		if _, ok := p.kinds[id.CounterId]; ok {
			return true
		}
	}
	return false
}

func (p *perfStats) intercept(c *soapCall, w http.ResponseWriter) bool {
	if c.Method != "QueryPerf" || c.This.Type != p.ref.Type || c.This.Value != p.ref.Value || !p.l.sessions.valid(c.Session) {
		return false
	}
	var req types.QueryPerf
	if err := decodeRequest(c.Body, &req); err != nil {
		return false
	}
	mine := false
	for i := range req.QuerySpec {
		mine = mine || p.ours(&req.QuerySpec[i])
	}
	if !mine {
		return false
	}
	var b strings.Builder
	for i := range req.QuerySpec {
		qs := &req.QuerySpec[i]
		if simulator.Map.Get(qs.Entity) == nil {
			writeFault(w, fmt.Sprintf("The object '%s:%s' has already been deleted or has not been completely created", qs.Entity.Type, qs.Entity.Value),
				&types.ManagedObjectNotFound{Obj: qs.Entity})
			return true
		}
		p.writeEntity(&b, qs)
	}
	w.Header().Set("Content-Type", "text/xml; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	_, _ = io.WriteString(w, envOpen+`<QueryPerfResponse xmlns="urn:vim25">`+b.String()+`</QueryPerfResponse>`+envClose)
	return true
}

type perfSeries struct {
	id     types.PerfMetricId
	values []int64
}

// sampleTimes returns the spec's sample times, oldest first, at the
// interval's boundaries.
func sampleTimes(qs *types.PerfQuerySpec) ([]time.Time, int32) {
	interval := qs.IntervalId
	if interval <= 0 {
		interval = 20
	}
	step := time.Duration(interval) * time.Second
	keep := 180 // realtime: one hour
	if interval != 20 {
		keep = 288
	}
	newest := time.Now().UTC().Truncate(step)
	oldest := newest.Add(-time.Duration(keep-1) * step)
	end := newest
	if qs.EndTime != nil && qs.EndTime.Before(end) {
		end = qs.EndTime.UTC().Truncate(step)
	}
	var times []time.Time
	if qs.StartTime != nil {
		for t := end; !t.Before(oldest) && t.After(*qs.StartTime); t = t.Add(-step) {
			times = append(times, t)
		}
	} else {
		n := int(qs.MaxSample)
		if n <= 0 {
			n = 1 // the most recent sample
		}
		for t := end; len(times) < n && !t.Before(oldest); t = t.Add(-step) {
			times = append(times, t)
		}
	}
	if qs.MaxSample > 0 && len(times) > int(qs.MaxSample) {
		times = times[:qs.MaxSample]
	}
	for i, j := 0, len(times)-1; i < j; i, j = i+1, j-1 {
		times[i], times[j] = times[j], times[i]
	}
	return times, interval
}

func (p *perfStats) writeEntity(b *strings.Builder, qs *types.PerfQuerySpec) {
	times, interval := sampleTimes(qs)
	var series []perfSeries
	var others []types.PerfMetricId
	host, isHost := simulator.Map.Get(qs.Entity).(*simulator.HostSystem)
	ids := qs.MetricId
	if isHost && len(ids) == 0 {
		for _, key := range p.order {
			ids = append(ids, types.PerfMetricId{CounterId: key, Instance: "*"})
		}
	}
	var dss []types.ManagedObjectReference
	if isHost {
		dss = hostDatastores(host)
	}
	for _, id := range ids {
		kind, ok := p.kinds[id.CounterId]
		if !ok || !isHost {
			others = append(others, id)
			continue
		}
		if p.empty {
			continue
		}
		for _, ds := range p.instances(dss, id.Instance) {
			s := perfSeries{id: types.PerfMetricId{CounterId: id.CounterId, Instance: ds.Value}, values: make([]int64, len(times))}
			if id.Instance != "*" {
				s.id.Instance = id.Instance
			}
			for i, t := range times {
				s.values[i] = p.value(kind, host.Self, ds, t, interval)
			}
			series = append(series, s)
		}
	}
	if len(others) > 0 && len(times) > 0 {
		series = append(series, p.canned(qs.Entity, others, len(times), interval)...)
	}
	if p.empty && len(series) == 0 {
		return // vCenter leaves out an entity it has no data for
	}

	csv := qs.Format == string(types.PerfFormatCsv)
	kind := "PerfEntityMetric"
	if csv {
		kind = "PerfEntityMetricCSV"
	}
	fmt.Fprintf(b, `<returnval xsi:type="%s">%s`, kind, morefXML("entity", qs.Entity))
	if csv {
		parts := make([]string, 0, 2*len(times))
		for _, t := range times {
			parts = append(parts, fmt.Sprint(interval), xmlTime(t))
		}
		if len(parts) > 0 {
			b.WriteString("<sampleInfoCSV>" + strings.Join(parts, ",") + "</sampleInfoCSV>")
		}
	} else {
		for _, t := range times {
			fmt.Fprintf(b, "<sampleInfo><timestamp>%s</timestamp><interval>%d</interval></sampleInfo>", xmlTime(t), interval)
		}
	}
	for _, s := range series {
		id := fmt.Sprintf("<id><counterId>%d</counterId><instance>%s</instance></id>", s.id.CounterId, xmlText(s.id.Instance))
		if csv {
			vals := make([]string, len(s.values))
			for i, v := range s.values {
				vals[i] = fmt.Sprint(v)
			}
			b.WriteString("<value>" + id + "<value>" + strings.Join(vals, ",") + "</value></value>")
			continue
		}
		b.WriteString(`<value xsi:type="PerfMetricIntSeries">` + id)
		for _, v := range s.values {
			fmt.Fprintf(b, "<value>%d</value>", v) // zeros too
		}
		b.WriteString("</value>")
	}
	b.WriteString("</returnval>")
}

// instances resolves a metric instance against the host's datastores:
// "*" all, a moref id or a summary.url uuid that one, "" none (the
// datastore counters have no aggregate).
func (p *perfStats) instances(dss []types.ManagedObjectReference, inst string) []types.ManagedObjectReference {
	if inst == "*" {
		return dss
	}
	if inst == "" {
		return nil
	}
	for _, ds := range dss {
		if ds.Value == inst {
			return []types.ManagedObjectReference{ds}
		}
		if obj, ok := simulator.Map.Get(ds).(*simulator.Datastore); ok {
			var url string
			simulator.Map.WithLock(obj, func() { url = obj.Summary.Url })
			parts := strings.Split(strings.TrimRight(url, "/"), "/")
			if len(parts) > 0 && parts[len(parts)-1] == inst {
				return []types.ManagedObjectReference{ds}
			}
		}
	}
	return nil
}

// value is a counter's value for a datastore of a host in the sample
// ending at t: a deterministic idle level plus the load of the guest
// processes that ran during the sample.
func (p *perfStats) value(kind dsCounter, host, ds types.ManagedObjectReference, t time.Time, interval int32) int64 {
	load := p.g.busy(host, ds, t.Add(-time.Duration(interval)*time.Second), t)
	h := fnv.New64a()
	_, _ = io.WriteString(h, host.Value+"|"+ds.Value+"|")
	_ = binary.Write(h, binary.LittleEndian, t.Unix())
	r := rand.New(rand.NewSource(int64(h.Sum64())))
	readOps := 2 + r.Int63n(6) + load*(1600+r.Int63n(800))
	writeOps := 5 + r.Int63n(10) + load*(1200+r.Int63n(600))
	blockKB := int64(16) // idle: small metadata I/O of mixed sizes
	if load > 0 {
		blockKB = 4
	}
	readLat := 1 + r.Int63n(2) + load*(1+r.Int63n(3))
	writeLat := 1 + r.Int63n(3) + load*(2+r.Int63n(3))
	switch kind {
	case dsReadOps:
		return readOps
	case dsWriteOps:
		return writeOps
	case dsReadKB:
		return readOps*blockKB + r.Int63n(8)
	case dsWriteKB:
		return writeOps*blockKB + r.Int63n(8)
	case dsReadLatency:
		return readLat
	default:
		return writeLat
	}
}

// canned gets n samples of ids for entity from the simulator's canned data,
// oldest first.
func (p *perfStats) canned(entity types.ManagedObjectReference, ids []types.PerfMetricId, n int, interval int32) []perfSeries {
	out := make([]perfSeries, len(ids))
	for i, id := range ids {
		out[i] = perfSeries{id: id, values: make([]int64, n)}
	}
	res := p.pm.PerformanceManager.QueryPerf(&simulator.Context{}, &types.QueryPerf{
		This: p.ref,
		QuerySpec: []types.PerfQuerySpec{{
			Entity: entity, MaxSample: int32(n), MetricId: ids, IntervalId: interval,
		}},
	})
	body, ok := res.(*methods.QueryPerfBody)
	if !ok || body.Res == nil || len(body.Res.Returnval) != 1 {
		return out
	}
	m, ok := body.Res.Returnval[0].(*types.PerfEntityMetric)
	if !ok {
		return out
	}
	for i := range out {
		if i >= len(m.Value) {
			break
		}
		s, ok := m.Value[i].(*types.PerfMetricIntSeries)
		if !ok {
			continue
		}
		for j := 0; j < n && j < len(s.Value); j++ {
			out[i].values[n-1-j] = s.Value[j] // newest first there
		}
	}
	return out
}
