package main

// vCenter's limits on concurrent Storage vMotions. vCenter does not refuse
// a relocation beyond its limits: it queues it (info.state "queued") and
// starts it when a slot frees. Its defaults are 2 per source host and 8 per
// target datastore (cost units: a host has 16, a Storage vMotion costs 8; a
// datastore 128 and 16). The lab does the same with -svmotion-per-host and
// -svmotion-per-datastore (0: no limit), so a client that starts more than
// the limits sees its tasks queued, and the waves take as long as they do
// on vCenter. The limits matter only when relocations take time
// (-task-seconds).
//
// -relocations-log FILE: one line per relocation as its state changes,
// "<unix-ms> <queued|start|end> <task> <vm> <source-host> <target-datastore>",
// so tests can assert from the lab's own clock how many ran at once.
// Its times, and a queued relocation's start, are the lab clock's
// (labclock.go).

import (
	"flag"
	"fmt"
	"net/http"
	"os"
	"sync"

	"github.com/vmware/govmomi/vim25/types"
)

type svmotionQueue struct {
	perHost, perDatastore int
	logPath               string

	clock   *labClock
	mu      sync.Mutex
	running map[string]int      // "host:" + name and "ds:" + name -> relocations running
	waiting []*queuedRelocation // in arrival order
	log     *os.File
}

// queuedRelocation waits for a slot; release admits it and closes admitted.
type queuedRelocation struct {
	slot     relocationSlot
	admitted chan struct{}
}

func (q *svmotionQueue) flags(fs *flag.FlagSet) {
	fs.IntVar(&q.perHost, "svmotion-per-host", 2, "Storage vMotions running at once per source host; more are queued (0: no limit)")
	fs.IntVar(&q.perDatastore, "svmotion-per-datastore", 8, "Storage vMotions running at once per target datastore; more are queued (0: no limit)")
	fs.StringVar(&q.logPath, "relocations-log", "", "append \"<unix-ms> <queued|start|end> <task> <vm> <host> <datastore>\" per relocation state to this file")
}

func (q *svmotionQueue) setup(l *lab) error {
	if q.perHost < 0 || q.perDatastore < 0 {
		return fmt.Errorf("-svmotion-per-host and -svmotion-per-datastore want >= 0")
	}
	q.clock = l.clock
	q.running = make(map[string]int)
	l.svmotions = q
	if q.logPath == "" {
		return nil
	}
	f, err := os.OpenFile(q.logPath, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	q.log = f
	l.onClose(func() {
		q.mu.Lock()
		_ = q.log.Close()
		q.log = nil
		q.mu.Unlock()
	})
	return nil
}

// relocationSlot is one relocation as the limits count it.
type relocationSlot struct {
	task, vm, host, ds string
}

// note logs one state change; q.mu is held.
func (q *svmotionQueue) note(what string, r relocationSlot) {
	if q.log != nil {
		fmt.Fprintf(q.log, "%d %s %s %q %s %q\n", q.clock.reading().UnixMilli(), what, r.task, r.vm, r.host, r.ds)
	}
}

func (q *svmotionQueue) fits(host, ds string) bool {
	return (q.perHost == 0 || q.running["host:"+host] < q.perHost) &&
		(q.perDatastore == 0 || q.running["ds:"+ds] < q.perDatastore)
}

// tryAdmit counts the relocation as running when it fits the limits now
// (nil); otherwise it is logged as queued and the caller waits for the
// returned entry's admitted.
func (q *svmotionQueue) tryAdmit(r relocationSlot) *queuedRelocation {
	q.mu.Lock()
	defer q.mu.Unlock()
	if !q.fits(r.host, r.ds) {
		q.note("queued", r)
		w := &queuedRelocation{slot: r, admitted: make(chan struct{})}
		q.waiting = append(q.waiting, w)
		return w
	}
	q.take(r)
	return nil
}

// take counts r as running; q.mu is held.
func (q *svmotionQueue) take(r relocationSlot) {
	q.running["host:"+r.host]++
	q.running["ds:"+r.ds]++
	q.note("start", r)
}

// release frees r's slot and admits, in arrival order, the queued
// relocations that fit now. The releaser admits them, not the waiters
// themselves when they wake: each is counted as running and holds the lab
// clock before the releaser lets go of it, so a manual clock's advance
// waits for their first step and they start exactly when r ended.
func (q *svmotionQueue) release(r relocationSlot) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.running["host:"+r.host]--
	q.running["ds:"+r.ds]--
	q.note("end", r)
	still := q.waiting[:0]
	for _, w := range q.waiting {
		if !q.fits(w.slot.host, w.slot.ds) {
			still = append(still, w)
			continue
		}
		q.take(w.slot)
		q.clock.hold()
		close(w.admitted)
	}
	q.waiting = still
}

// serve answers RelocateVM_Task as lab.serveTask does, through vCenter's
// queue: a slow relocation that does not fit is answered in state "queued"
// and runs once a slot frees; its time (-task-seconds) counts from then.
func (q *svmotionQueue) serve(l *lab, c *soapCall, w http.ResponseWriter, slot relocationSlot,
	perform func() (types.AnyType, *types.LocalizedMethodFault)) {
	d, steps := l.slow.plan(c.Method)
	if d <= 0 {
		l.serveTask(c, w, slot.vm, perform)
		return
	}
	l.clock.hold() // before the task's times are read: no advance slips in before its steps
	task := l.newClientTask(c, slot.vm)
	slot.task = task.Reference().Value
	queued := q.tryAdmit(slot)
	if queued != nil {
		update(task, []types.PropertyChange{{Name: "info.state", Val: types.TaskInfoStateQueued}})
		l.clock.release() // the queue's release takes the clock for it once admitted
	}
	writeMorefResponse(w, c.Method, task.Reference())
	go func() {
		defer l.clock.release()
		if queued != nil {
			<-queued.admitted // release took the slot and the clock for it
			update(task, []types.PropertyChange{
				{Name: "info.state", Val: types.TaskInfoStateRunning},
				{Name: "info.startTime", Val: l.clock.reading()}})
		}
		l.slow.progress(task, d, steps)
		result, fault := perform()
		l.finishTask(task, result, fault)
		q.release(slot)
	}()
}

// orEmpty is ref, or a reference to nothing (Map.Get finds no object).
func orEmpty(ref *types.ManagedObjectReference) *types.ManagedObjectReference {
	if ref == nil {
		return &types.ManagedObjectReference{}
	}
	return ref
}
