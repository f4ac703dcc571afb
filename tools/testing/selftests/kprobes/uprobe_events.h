/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What uprobe_events.c's assembly defines: ut_target(), and the table of
 * its probe points (section utp_points, one entry per instruction).
 */
#ifndef UPROBE_EVENTS_H
#define UPROBE_EVENTS_H

struct ut_point {
	unsigned long addr;	/* the instruction */
	unsigned long block;	/* its block of model(), and flags */
};

extern const struct ut_point __start_utp_points[], __stop_utp_points[];

long ut_target(long n);

#endif /* UPROBE_EVENTS_H */
