/*
 * The progress display of the long commands (search, guideline, bisect):
 * on a terminal one status line rewritten in place, "WHAT: K/N (DETAIL),
 * elapsed M:SS, left ~M:SS"; elsewhere plain lines, the first at once and
 * then at most one every PLAIN_EVERY seconds. SAFECOLL_PROGRESS=tty|plain|off
 * overrides the choice (the tests force tty without a terminal).
 */
#define _POSIX_C_SOURCE 200809L

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "tool.h"

enum { PLAIN_EVERY = 10 };

static double mono(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

int tool_term_width(int fd)
{
    const char *c = getenv("COLUMNS");
    struct winsize ws;

    if (c != NULL && *c != '\0') {
        char *end;
        long v = strtol(c, &end, 10);
        if (*end == '\0' && v >= 20 && v <= 10000)
            return (int)v;
    }
    if (ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 20)
        return ws.ws_col;
    return 80;
}

int tool_progress_mode(void)
{
    const char *e = getenv("SAFECOLL_PROGRESS");

    if (e != NULL && strcmp(e, "tty") == 0)
        return TOOL_PROGRESS_TTY;
    if (e != NULL && strcmp(e, "plain") == 0)
        return TOOL_PROGRESS_PLAIN;
    if (e != NULL && strcmp(e, "off") == 0)
        return TOOL_PROGRESS_OFF;
    return isatty(2) ? TOOL_PROGRESS_TTY : TOOL_PROGRESS_PLAIN;
}

void tool_progress_start(tool_progress *p, const char *what, int total, int approx)
{
    const char *term = getenv("TERM");

    memset(p, 0, sizeof *p);
    p->mode = tool_progress_mode();
    p->dumb = term != NULL && strcmp(term, "dumb") == 0;
    p->width = tool_term_width(2);
    snprintf(p->what, sizeof p->what, "%s", what);
    p->total = total > 0 ? total : 0;
    p->approx = approx;
    p->t0 = mono();
    p->last_plain = -1;
}

/* M:SS, or H:MM:SS from an hour on. */
static void clock_text(double s, char *buf, size_t len)
{
    long t = s < 0 ? 0 : (long)(s + 0.5);

    if (t >= 3600)
        snprintf(buf, len, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
    else
        snprintf(buf, len, "%ld:%02ld", t / 60, t % 60);
}

/* The status line, its detail cut so that the whole fits in max chars. */
static void status_text(const tool_progress *p, double now, char *buf, size_t max)
{
    char head[96], tail[64], el[24], left[24] = "?";
    double elapsed = now - p->t0;
    size_t room;
    int dlen = (int)strlen(p->detail);

    if (p->total > 0)
        snprintf(head, sizeof head, "%s: %d/%s%d", p->what, p->done, p->approx ? "~" : "",
                 p->total);
    else
        snprintf(head, sizeof head, "%s: %d", p->what, p->done);
    clock_text(elapsed, el, sizeof el);
    if (p->total > 0 && p->done > 0) {
        left[0] = '~';
        clock_text(elapsed / p->done * (p->total - p->done), left + 1, sizeof left - 1);
    }
    snprintf(tail, sizeof tail, ", elapsed %s, left %s", el, left);
    room = max > strlen(head) + strlen(tail) + 4 ? max - strlen(head) - strlen(tail) - 4 : 0;
    if (dlen == 0 || room < 4)
        snprintf(buf, max, "%s%s", head, tail);
    else if ((size_t)dlen <= room)
        snprintf(buf, max, "%s (%s)%s", head, p->detail, tail);
    else
        snprintf(buf, max, "%s (%.*s...)%s", head, (int)room - 3, p->detail, tail);
}

static void draw(tool_progress *p)
{
    char line[sizeof p->detail + 256];
    size_t max = p->width > 1 ? (size_t)p->width - 1 : 79, n;

    if (max >= sizeof line)
        max = sizeof line - 1;
    status_text(p, mono(), line, max + 1);
    n = strlen(line);
    if (p->dumb) /* no escape sequences: spaces erase the rest */
        fprintf(stderr, "\r%s%*s", line, p->shown > n ? (int)(p->shown - n) : 0, "");
    else
        fprintf(stderr, "\r\033[K%s", line);
    p->shown = n;
    fflush(stderr);
}

void tool_progress_step(tool_progress *p, int done, const char *fmt, ...)
{
    va_list ap;
    double now = mono();

    p->done = done;
    if (p->approx && p->total > 0 && p->total < done + 1)
        p->total = done + 1;
    va_start(ap, fmt);
    vsnprintf(p->detail, sizeof p->detail, fmt, ap);
    va_end(ap);
    if (p->mode == TOOL_PROGRESS_TTY) {
        draw(p);
    } else if (p->mode == TOOL_PROGRESS_PLAIN &&
               (p->last_plain < 0 || now - p->last_plain >= PLAIN_EVERY)) {
        char line[sizeof p->detail + 256];
        status_text(p, now, line, sizeof line);
        fprintf(stderr, "%s\n", line);
        fflush(stderr);
        p->last_plain = now;
    }
}

void tool_progress_clear(tool_progress *p)
{
    if (p->mode != TOOL_PROGRESS_TTY || p->shown == 0)
        return;
    if (p->dumb)
        fprintf(stderr, "\r%*s\r", (int)p->shown, "");
    else
        fputs("\r\033[K", stderr);
    p->shown = 0;
    fflush(stderr);
}

void tool_progress_line(tool_progress *p, const char *fmt, ...)
{
    va_list ap;

    if (p->mode == TOOL_PROGRESS_OFF)
        return;
    tool_progress_clear(p);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    fflush(stderr);
}

void tool_progress_end(tool_progress *p)
{
    tool_progress_clear(p);
}
