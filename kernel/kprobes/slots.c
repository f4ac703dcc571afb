// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Executable slots for arch code: copies of probed instructions run out of
 * line (insn slots) and optimized probes' detours (optinsn slots).
 *
 * Each cache carves executable pages into fixed-size slots: the insn
 * cache's pages come from alloc_insn_page(), the optinsn cache's from
 * alloc_optinsn_page(), which an arch overrides when its detours, unlike
 * its other slots, must be within reach of the text.  A slot freed
 * "dirty" may still be executed by a CPU, or by a task preempted in it
 * (boosted copies and detours run preemptible), so it is reused only after
 * both an RCU and an RCU-tasks grace period.  That wait runs in a worker:
 * allocation never waits for it, it takes a clean slot or a new page.
 *
 * The page lists are RCU lists so that is_kprobe_insn_slot() and friends,
 * called by kernel_text_address() from any context, take no lock.
 */
#define pr_fmt(fmt) "kprobes: " fmt

#include <linux/kprobes.h>
#include <linux/execmem.h>
#include <linux/kallsyms.h>
#include <linux/mutex.h>
#include <linux/perf_event.h>
#include <linux/rculist.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/workqueue.h>

#include "internal.h"

enum slot_state {
	SLOT_CLEAN,		/* free */
	SLOT_USED,		/* given to arch code */
	SLOT_DIRTY,		/* freed, may still be executed */
	SLOT_COLLECTING,	/* dirty when the collector started waiting */
};

struct kprobe_insn_page {
	struct list_head list;
	kprobe_opcode_t *insns;
	struct kprobe_insn_cache *cache;
	struct rcu_work free_work;
	int nused;		/* SLOT_USED */
	int nunclean;		/* SLOT_DIRTY and SLOT_COLLECTING */
	u8 slots[];
};

struct kprobe_insn_cache {
	struct mutex mutex;	/* protects everything but RCU page walks */
	struct list_head pages;
	const char *sym;	/* name of its pages in /proc/kallsyms */
	size_t slot_size;	/* in bytes */
	int nslots;		/* per page */
	void *(*page_alloc)(void);
	void (*page_free)(void *page);
	bool has_dirty;
	struct work_struct gc_work;
};

void *__weak alloc_insn_page(void)
{
	return execmem_alloc(EXECMEM_KPROBES, PAGE_SIZE);
}

void __weak free_insn_page(void *page)
{
	execmem_free(page);
}

static void collect_garbage(struct work_struct *work);

/* KPROBE_INSN_SLOT_SIZE (units) defaults to MAX_INSN_SIZE, see kprobes.h. */
#define KPROBE_INSN_SLOT_BYTES	(KPROBE_INSN_SLOT_SIZE * sizeof(kprobe_opcode_t))

static struct kprobe_insn_cache kprobe_insn_slots = {
	.mutex = __MUTEX_INITIALIZER(kprobe_insn_slots.mutex),
	.pages = LIST_HEAD_INIT(kprobe_insn_slots.pages),
	.sym = "kprobe_insn_page",
	.slot_size = KPROBE_INSN_SLOT_BYTES,
	.nslots = PAGE_SIZE / KPROBE_INSN_SLOT_BYTES,
	.page_alloc = alloc_insn_page,
	.page_free = free_insn_page,
	.gc_work = __WORK_INITIALIZER(kprobe_insn_slots.gc_work, collect_garbage),
};

#ifdef CONFIG_OPTPROBES
void *__weak alloc_optinsn_page(void)
{
	return alloc_insn_page();
}

void __weak free_optinsn_page(void *page)
{
	free_insn_page(page);
}

#define KPROBE_OPTINSN_SLOT_BYTES	(MAX_OPTINSN_SIZE * sizeof(kprobe_opcode_t))

static struct kprobe_insn_cache kprobe_optinsn_slots = {
	.mutex = __MUTEX_INITIALIZER(kprobe_optinsn_slots.mutex),
	.pages = LIST_HEAD_INIT(kprobe_optinsn_slots.pages),
	.sym = "kprobe_optinsn_page",
	.slot_size = KPROBE_OPTINSN_SLOT_BYTES,
	.nslots = PAGE_SIZE / KPROBE_OPTINSN_SLOT_BYTES,
	.page_alloc = alloc_optinsn_page,
	.page_free = free_optinsn_page,
	.gc_work = __WORK_INITIALIZER(kprobe_optinsn_slots.gc_work,
				      collect_garbage),
};
#endif

static struct kprobe_insn_cache *const kprobe_caches[] = {
	&kprobe_insn_slots,
#ifdef CONFIG_OPTPROBES
	&kprobe_optinsn_slots,
#endif
};

static void free_page_work(struct work_struct *work)
{
	struct kprobe_insn_page *kip =
		container_of(to_rcu_work(work), struct kprobe_insn_page, free_work);

	kip->cache->page_free(kip->insns);
	kfree(kip);
}

static kprobe_opcode_t *take_clean_slot(struct kprobe_insn_cache *c)
{
	struct kprobe_insn_page *kip;
	int i;

	list_for_each_entry(kip, &c->pages, list) {
		if (kip->nused + kip->nunclean >= c->nslots)
			continue;
		for (i = 0; i < c->nslots; i++) {
			if (kip->slots[i] == SLOT_CLEAN) {
				kip->slots[i] = SLOT_USED;
				kip->nused++;
				return (void *)kip->insns + i * c->slot_size;
			}
		}
	}
	return NULL;
}

static kprobe_opcode_t *get_slot(struct kprobe_insn_cache *c)
{
	struct kprobe_insn_page *kip;
	kprobe_opcode_t *slot;

	mutex_lock(&c->mutex);
	slot = take_clean_slot(c);
	if (slot)
		goto out;

	kip = kzalloc(struct_size(kip, slots, c->nslots), GFP_KERNEL);
	if (!kip)
		goto out;
	kip->insns = c->page_alloc();
	if (!kip->insns) {
		kfree(kip);
		goto out;
	}
	kip->cache = c;
	INIT_RCU_WORK(&kip->free_work, free_page_work);
	kip->slots[0] = SLOT_USED;
	kip->nused = 1;
	list_add_rcu(&kip->list, &c->pages);
	/* For perf's decoders (e.g. of Intel PT traces) of the copies run. */
	perf_event_ksymbol(PERF_RECORD_KSYMBOL_TYPE_OOL,
			   (unsigned long)kip->insns, PAGE_SIZE, false, c->sym);
	slot = kip->insns;
out:
	mutex_unlock(&c->mutex);
	return slot;
}

static struct kprobe_insn_page *page_of(struct kprobe_insn_cache *c, void *addr)
{
	struct kprobe_insn_page *kip;

	list_for_each_entry(kip, &c->pages, list) {
		if (addr >= (void *)kip->insns && addr < (void *)kip->insns + PAGE_SIZE)
			return kip;
	}
	return NULL;
}

static void free_slot(struct kprobe_insn_cache *c, kprobe_opcode_t *slot,
		      int dirty)
{
	struct kprobe_insn_page *kip;
	int i;

	mutex_lock(&c->mutex);
	kip = page_of(c, slot);
	if (!kip)
		goto out;
	i = ((void *)slot - (void *)kip->insns) / c->slot_size;
	if (kip->slots[i] != SLOT_USED)
		goto out;
	kip->nused--;
	if (dirty) {
		kip->slots[i] = SLOT_DIRTY;
		kip->nunclean++;
		if (!c->has_dirty) {
			c->has_dirty = true;
			schedule_work(&c->gc_work);
		}
	} else {
		kip->slots[i] = SLOT_CLEAN;
		/* The collector frees empty pages but one. */
		if (!kip->nused && !kip->nunclean)
			schedule_work(&c->gc_work);
	}
out:
	mutex_unlock(&c->mutex);
}

/*
 * Make dirty slots clean once nothing can run in them any more, and free
 * the pages left empty, keeping one for the next allocation.
 */
static void collect_garbage(struct work_struct *work)
{
	struct kprobe_insn_cache *c =
		container_of(work, struct kprobe_insn_cache, gc_work);
	struct kprobe_insn_page *kip, *tmp;
	bool spare = false, dirty = false;
	int i;

	mutex_lock(&c->mutex);
	list_for_each_entry(kip, &c->pages, list) {
		for (i = 0; i < c->nslots; i++) {
			if (kip->slots[i] == SLOT_DIRTY) {
				kip->slots[i] = SLOT_COLLECTING;
				dirty = true;
			}
		}
	}
	c->has_dirty = false;
	mutex_unlock(&c->mutex);

	/*
	 * CPUs in the slots, then tasks preempted in them.  Pages emptied by
	 * clean frees only need none of it.
	 */
	if (dirty) {
		synchronize_rcu();
		synchronize_rcu_tasks();
	}

	mutex_lock(&c->mutex);
	list_for_each_entry_safe(kip, tmp, &c->pages, list) {
		for (i = 0; i < c->nslots; i++) {
			if (kip->slots[i] == SLOT_COLLECTING) {
				kip->slots[i] = SLOT_CLEAN;
				kip->nunclean--;
			}
		}
		if (kip->nused || kip->nunclean)
			continue;
		if (!spare) {
			spare = true;
			continue;
		}
		list_del_rcu(&kip->list);
		perf_event_ksymbol(PERF_RECORD_KSYMBOL_TYPE_OOL,
				   (unsigned long)kip->insns, PAGE_SIZE, true,
				   c->sym);
		queue_rcu_work(system_wq, &kip->free_work);
	}
	mutex_unlock(&c->mutex);
}

/**
 * get_insn_slot() - a slot for an out-of-line copy of an instruction
 *
 * Return: KPROBE_INSN_SLOT_SIZE units of executable memory, or NULL.
 */
kprobe_opcode_t *get_insn_slot(void)
{
	return get_slot(&kprobe_insn_slots);
}

/**
 * free_insn_slot() - give back a slot from get_insn_slot()
 * @slot: the slot
 * @dirty: non-zero if a CPU or a preempted task may still execute in it
 */
void free_insn_slot(kprobe_opcode_t *slot, int dirty)
{
	free_slot(&kprobe_insn_slots, slot, dirty);
}

#if IS_ENABLED(CONFIG_KPROBES_KUNIT_TEST)
/* For the KUnit suite: see internal.h. */
void kprobe_slots_flush(void)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(kprobe_caches); i++)
		flush_work(&kprobe_caches[i]->gc_work);
}
#endif

#ifdef CONFIG_OPTPROBES
/**
 * get_optinsn_slot() - a slot for an optimized probe's detour
 *
 * Return: MAX_OPTINSN_SIZE units of executable memory, or NULL.
 */
kprobe_opcode_t *get_optinsn_slot(void)
{
	return get_slot(&kprobe_optinsn_slots);
}

/**
 * free_optinsn_slot() - give back a slot from get_optinsn_slot()
 * @slot: the slot
 * @dirty: non-zero if a CPU or a preempted task may still execute in it
 */
void free_optinsn_slot(kprobe_opcode_t *slot, int dirty)
{
	free_slot(&kprobe_optinsn_slots, slot, dirty);
}
#endif

static bool in_cache(struct kprobe_insn_cache *c, unsigned long addr)
{
	struct kprobe_insn_page *kip;

	guard(rcu)();
	/* Below the page, the unsigned difference wraps and fails the test too. */
	list_for_each_entry_rcu(kip, &c->pages, list)
		if (addr - (unsigned long)kip->insns < PAGE_SIZE)
			return true;
	return false;
}

/**
 * is_kprobe_insn_slot() - whether an address is in an instruction slot page
 * @addr: the address
 *
 * Lockless, for kernel_text_address().
 *
 * Return: true if @addr is in a page of the instruction slot cache.
 */
bool is_kprobe_insn_slot(unsigned long addr)
{
	return in_cache(&kprobe_insn_slots, addr);
}

NOKPROBE_SYMBOL(is_kprobe_insn_slot);

/**
 * is_kprobe_optinsn_slot() - whether an address is in a detour slot page
 * @addr: the address
 *
 * Return: true if @addr is in a page of the optimized probes' slot cache.
 */
bool is_kprobe_optinsn_slot(unsigned long addr)
{
#ifdef CONFIG_OPTPROBES
	return in_cache(&kprobe_optinsn_slots, addr);
#else
	return false;
#endif
}

NOKPROBE_SYMBOL(is_kprobe_optinsn_slot);

/**
 * kprobe_get_kallsym() - the slot pages, as symbols for /proc/kallsyms
 * @symnum: index of the symbol among kprobes' ones
 * @value: its address
 * @type: its type ('t')
 * @sym: its name, KSYM_NAME_LEN bytes
 *
 * Return: 0, or -ERANGE past the last page.
 */
int kprobe_get_kallsym(unsigned int symnum, unsigned long *value, char *type,
		       char *sym)
{
	struct kprobe_insn_page *kip;
	int i, ret = -ERANGE;

	rcu_read_lock();
	for (i = 0; i < ARRAY_SIZE(kprobe_caches); i++) {
		struct kprobe_insn_cache *c = kprobe_caches[i];

		list_for_each_entry_rcu(kip, &c->pages, list) {
			if (symnum--)
				continue;
			*value = (unsigned long)kip->insns;
			*type = 't';
			strscpy(sym, c->sym, KSYM_NAME_LEN);
			ret = 0;
			goto out;
		}
	}
out:
	rcu_read_unlock();
	return ret;
}
