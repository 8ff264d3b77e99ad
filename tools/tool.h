/*
 * Commands of bin/safecoll that live outside tools/safecoll.c.
 */
#ifndef SAFECOLL_TOOL_H
#define SAFECOLL_TOOL_H

/* `safecoll probe ...`: the in-job worker of a search (an MPI program). */
int tool_probe(int argc, char **argv);

/* `safecoll search ...`: the driver, outside MPI. */
int tool_search(int argc, char **argv);

#endif /* SAFECOLL_TOOL_H */
