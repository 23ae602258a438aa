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

import (
	"flag"
	"fmt"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/vmware/govmomi/vim25/types"
)

type svmotionQueue struct {
	perHost, perDatastore int
	logPath               string

	mu      sync.Mutex
	freed   *sync.Cond
	running map[string]int // "host:" + name and "ds:" + name -> relocations running
	log     *os.File
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
	q.freed = sync.NewCond(&q.mu)
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
		fmt.Fprintf(q.log, "%d %s %s %q %s %q\n", time.Now().UnixMilli(), what, r.task, r.vm, r.host, r.ds)
	}
}

func (q *svmotionQueue) fits(host, ds string) bool {
	return (q.perHost == 0 || q.running["host:"+host] < q.perHost) &&
		(q.perDatastore == 0 || q.running["ds:"+ds] < q.perDatastore)
}

// tryAdmit counts the relocation as running when it fits the limits now;
// otherwise it is logged as queued and the caller waits in admit.
func (q *svmotionQueue) tryAdmit(r relocationSlot) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	if !q.fits(r.host, r.ds) {
		q.note("queued", r)
		return false
	}
	q.take(r)
	return true
}

// admit blocks until the queued relocation fits, then counts it as running.
func (q *svmotionQueue) admit(r relocationSlot) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for !q.fits(r.host, r.ds) {
		q.freed.Wait()
	}
	q.take(r)
}

// take counts r as running; q.mu is held.
func (q *svmotionQueue) take(r relocationSlot) {
	q.running["host:"+r.host]++
	q.running["ds:"+r.ds]++
	q.note("start", r)
}

func (q *svmotionQueue) release(r relocationSlot) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.running["host:"+r.host]--
	q.running["ds:"+r.ds]--
	q.note("end", r)
	q.freed.Broadcast()
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
	task := newClientTask(c, slot.vm)
	slot.task = task.Reference().Value
	admitted := q.tryAdmit(slot)
	if !admitted {
		update(task, []types.PropertyChange{{Name: "info.state", Val: types.TaskInfoStateQueued}})
	}
	writeMorefResponse(w, c.Method, task.Reference())
	go func() {
		if !admitted {
			q.admit(slot)
			update(task, []types.PropertyChange{
				{Name: "info.state", Val: types.TaskInfoStateRunning},
				{Name: "info.startTime", Val: time.Now()}})
		}
		l.slow.progress(task, d, steps)
		result, fault := perform()
		finishTask(task, result, fault)
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
