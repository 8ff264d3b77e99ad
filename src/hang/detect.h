/*
 * The statistics of the hang detector (paper 004, ParaStack): pure
 * functions and a state machine, with no MPI and no threads, so that every
 * rule can be checked by a unit test on hand-made sample streams.
 *
 * The detector watches S_out, the fraction (0..1) of the monitored
 * processes that are outside MPI at a sample. A hang shows as S_out very
 * small, again and again. The monitor samples at random times (a step
 * uniform in [I/2, 3I/2), sc__hang_step) and feeds every sample to
 * sc__hang_det_feed, which answers with a verdict:
 *
 * - The model is the sequence of accepted samples, at most
 *   SC__HANG_MODEL_MAX of them (the oldest is dropped first); its empirical
 *   CDF F is what a new sample is judged against. While the model holds
 *   fewer than 11 samples there is no level (sc__hang_level): every sample
 *   is accepted and the verdict is SC_HANG_BUILDING.
 *
 * - With n >= 11 samples in the model, the level gives (p-hat, d) and the
 *   threshold is t = F^-1(p-hat). A sample x <= t is a suspicion. The paper
 *   estimates the suspicion probability by q = p-hat + d. S_out takes few
 *   distinct values (with 2 monitored ranks only 0, 0.5 and 1), so ties
 *   make the observed probability of a suspicion, F(t), larger than p-hat;
 *   the detector uses q = max(p-hat, F(t)) + d. Since F(t) >= p-hat by the
 *   definition of the quantile, this never lowers q, and a larger q only
 *   needs a longer streak: the refinement can delay a verdict, never bring
 *   one sooner. The streak needed is k = sc__hang_k(q, alpha).
 *
 * - A suspicion is not added to the model at once: it is held pending,
 *   the streak grows and the verdict is SC_HANG_SUSPECT, or SC_HANG_HUNG
 *   once the streak reaches k (and on every further suspicion). A
 *   non-suspicion adds the pending samples and itself to the model, in
 *   order, and ends the streak. So the constant samples of a real hang
 *   never enter the model, while the samples of a normal short wait do.
 *   One exception: when q >= 1 no streak can be significant (k is
 *   INT_MAX), and a suspicion is accepted like a non-suspicion (verdict
 *   SC_HANG_CALM). Holding it could never lead to a verdict and would
 *   freeze the model: after 11 equal samples, t is that value and every
 *   later sample would be a suspicion for ever.
 *
 * - Every time `block` new samples have entered the model, the last
 *   `block` of them go through the runs test (sc__hang_runs_test). When it
 *   finds them not random the verdict of that feed is SC_HANG_NOT_RANDOM:
 *   the caller should double its interval I. The model is kept, since the
 *   distribution of S_out at a random time does not depend on I. A test
 *   that cannot tell (all samples on one side of the mean) counts as
 *   random. Otherwise the verdict is SC_HANG_CALM. When a long streak
 *   brings more than `block` samples in at once, the newest block is
 *   tested once and the count starts again.
 *
 * The paper's timeout method, the baseline of the benchmark, is
 * sc__hang_timeout_feed.
 */
#ifndef SC_HANG_DETECT_H
#define SC_HANG_DETECT_H

#include <stdint.h>

/* The most samples the model holds; past it the oldest is dropped. The
 * smallest level needs 86 samples, so this leaves the ECDF precise to
 * well under the level's d while bounding the memory and the work of a
 * feed. */
#define SC__HANG_MODEL_MAX 4096

/* Fewest samples in the model for the first level of sc__hang_level. */
#define SC__HANG_MIN_MODEL 11

/**
 * \brief The two-sided 95% non-rejection region of the Wald-Wolfowitz runs
 * test, from the exact distribution of the number of runs R of n1 '+' and
 * n2 '-' in random order.
 *
 * The region is the open interval (lo, hi): R is random iff lo < R < hi.
 * lo is the largest r with P(R <= r) <= 0.025, or 1 when even P(R <= 2)
 * exceeds 0.025; hi is the smallest r with P(R >= r) <= 0.025, which is at
 * most the largest possible R plus one. Both tails use "<= 0.025", as the
 * tables of Swed and Eisenhart do: a tail of exactly 0.025 (n1 = 3,
 * n2 = 14 has P(R <= 3) = 1/40) is rejected. The slides' example,
 * n1 = 7, n2 = 9, gives (4, 14) under both "<=" and "<". A probability
 * within 1e-10 of 0.025 counts as equal, so that rounding cannot move an
 * exact tie. Works for large n1 + n2 (in log space).
 *
 * \param[in] n1 the number of '+', at least 1
 * \param[in] n2 the number of '-', at least 1
 * \param[out] lo the lower end of the region (excluded); 0 when n1 or n2
 *             is below 1
 * \param[out] hi the upper end of the region (excluded); 0 when n1 or n2
 *             is below 1
 */
void sc__hang_runs_region(int n1, int n2, int *lo, int *hi);

/**
 * \brief The runs test of the slides on n values: values above their mean
 * are '+', below it '-', values equal to the mean are dropped; R counts the
 * runs of the remaining signs.
 *
 * A value within 1e-12 (relative to the largest magnitude) of the mean
 * counts as equal to it, so that the rounding of the mean cannot give a
 * sign to a value that is the mean (0.5 among 0s and 1s).
 *
 * \param[in] x the values (may be NULL when n is 0)
 * \param[in] n how many
 * \param[out] R the number of runs (may be NULL)
 * \param[out] lo the region's lower end, 0 when the test cannot tell (may be
 *             NULL)
 * \param[out] hi the region's upper end, 0 when the test cannot tell (may be
 *             NULL)
 * \return 1 when R is in the region (random), 0 when it is not, -1 when
 *         the test cannot tell: no '+' or no '-' (a constant sequence, or
 *         n < 2)
 */
int sc__hang_runs_test(const double *x, int n, int *R, int *lo, int *hi);

/**
 * \brief The paper's levels: the p-hat that defines a suspicion, and the
 * bound d on |p - p-hat| at 95% confidence, by model size n.
 *
 * p-hat 0.47, d 0.3 for 11 <= n < 19; 0.27, 0.2 for 19 <= n < 42; 0.12, 0.1
 * for 42 <= n < 86; 0.06, 0.05 for n >= 86.
 *
 * \param[in] n the model size
 * \param[out] phat p-hat, left unset when n < 11
 * \param[out] d the bound d, left unset when n < 11
 * \return 1 when n has a level, 0 when n < 11
 */
int sc__hang_level(int n, double *phat, double *d);

/**
 * \brief The smallest streak of suspicions that is significant: the least
 * integer k >= 1 with q^k <= alpha (the tail of the geometric
 * distribution).
 *
 * A power within a relative 1e-9 of alpha counts as equal, so that
 * q = 0.1, alpha = 0.001 gives 3 although 0.1^3 rounds above 0.001.
 *
 * \param[in] q the suspicion probability
 * \param[in] alpha the significance level, in (0, 1)
 * \return k; INT_MAX when q >= 1 (or alpha <= 0, or either is NaN): no
 *         streak is significant; 1 when q <= 0
 */
int sc__hang_k(double q, double alpha);

/**
 * \brief F^-1(p) of the empirical CDF of n sorted values: the smallest
 * value v with F(v) >= p, i.e. sorted[ceil(p n) - 1], the index clamped to
 * [0, n - 1].
 *
 * p n is rounded down when it is within 1e-9 of an integer, so that
 * 0.06 * 100 gives index 5 whatever the rounding of 0.06.
 *
 * \param[in] sorted the values in ascending order
 * \param[in] n how many, at least 1
 * \param[in] p the probability
 * \return the quantile; NaN when n < 1
 */
double sc__hang_quantile(const double *sorted, int n, double p);

/**
 * \brief F(v) of the empirical CDF of n sorted values: the fraction of the
 * values that are <= v.
 *
 * \param[in] sorted the values in ascending order
 * \param[in] n how many
 * \return the fraction, 0 when n < 1
 */
double sc__hang_ecdf(const double *sorted, int n, double v);

/**
 * \brief splitmix64: the next pseudo-random 64-bit value of the stream
 * whose state is *state. Any state is valid, 0 included; the same state
 * gives the same stream on every platform.
 */
uint64_t sc__hang_rand(uint64_t *state);

/**
 * \brief The random step between two samples: rand(I) + I/2, uniform in
 * [I/2, 3I/2).
 *
 * \param[in] I the interval, a positive finite number
 * \param[in,out] state the generator's state (sc__hang_rand)
 * \return the step; 0 when I is not a positive finite number
 */
double sc__hang_step(double I, uint64_t *state);

/** The verdict of one feed of the detector (see the top of this file). */
typedef enum {
    SC_HANG_BUILDING,   /**< the model is too small to judge; the sample was accepted */
    SC_HANG_CALM,       /**< not a suspicion; the sample entered the model */
    SC_HANG_SUSPECT,    /**< a suspicion, held pending; the streak is below k */
    SC_HANG_NOT_RANDOM, /**< accepted, and the runs test found the samples not random */
    SC_HANG_HUNG,       /**< the streak of suspicions reached k */
    SC_HANG_HELD        /**< not a suspicion, but frozen: held, outside the model */
} sc__hang_verdict;

/** The statistics of the last feed, for the report. */
typedef struct sc__hang_stats {
    int n;      /**< the model size the sample was judged against */
    double phat; /**< the level's p-hat; 0 without a level (n < 11) */
    double d;   /**< the level's d; 0 without a level */
    double q;   /**< max(phat, f_t) + d; 0 without a level */
    double t;   /**< the threshold F^-1(phat); 0 without a level */
    double f_t; /**< F(t), the observed suspicion probability; 0 without a level */
    int k;      /**< the streak that is significant; 0 without a level */
    int streak; /**< the suspicions in a row, this sample included */
    int runs_R; /**< the last runs test's R; 0 before the first test */
    int runs_lo; /**< and its region's lower end */
    int runs_hi; /**< and its upper end */
} sc__hang_stats;

/** The detector. Its fields are internal; a zero-initialised one may be
 * given to sc__hang_det_free. */
typedef struct sc__hang_det {
    double alpha;      /* the significance level */
    int block;         /* samples per runs test */
    double *model;     /* the model's samples, oldest first */
    double *sorted;    /* the same samples, ascending */
    int n, cap;        /* samples in model and sorted, and their room */
    double *pend;      /* the pending suspicions, oldest first */
    int npend, pcap;   /* pending samples kept, and their room */
    int streak;        /* suspicions in a row (may exceed npend) */
    int waiting;       /* samples held, suspicions or frozen (may exceed npend) */
    int fresh;         /* samples added since the last runs test */
    sc__hang_stats st; /* the statistics of the last feed */
    sc__hang_verdict last; /* the verdict of the last feed */
} sc__hang_det;

/**
 * \brief Starts a detector with an empty model.
 *
 * \param[out] d the detector
 * \param[in] alpha the significance level, in (0, 1); the paper uses 0.001
 * \param[in] block samples per runs test, at least 2 (e.g. 20)
 * \return 0, or -1 on a bad argument or when memory is short (then *d
 *         may be given to sc__hang_det_free but to nothing else)
 */
int sc__hang_det_init(sc__hang_det *d, double alpha, int block);

/**
 * \brief Judges one sample of S_out and updates the model.
 *
 * Should memory run short while the model grows, the model simply stops
 * growing (its oldest sample is dropped instead). A NaN sample changes
 * nothing and repeats the previous verdict (SC_HANG_BUILDING before the
 * first feed).
 *
 * \param[in,out] d the detector
 * \param[in] s_out the fraction of monitored processes outside MPI
 * \return the verdict (see the top of this file)
 */
sc__hang_verdict sc__hang_det_feed(sc__hang_det *d, double s_out);

/**
 * \brief As sc__hang_det_feed, for a sample taken while the state is
 *        frozen or not.
 *
 * \p frozen says that no monitored rank changed state (in or out of MPI,
 * or to another call) since the previous sample: the sample sees the
 * same wait again. A frozen sample is judged as any other (a suspicion
 * grows the streak, up to SC_HANG_HUNG), but it never enters the model by
 * itself: when it is not a suspicion, or is one that would be accepted
 * because q >= 1, it is held with the pending samples (verdict
 * SC_HANG_HELD) and enters, in order, with the next accepted sample that
 * is not frozen. So a hang that starts while the model is being built
 * (every sample accepted) or that the model cannot judge (q >= 1) never
 * trains the model with its samples, while a long healthy wait enters it
 * as soon as the state moves again.
 *
 * \param[in,out] d the detector
 * \param[in] s_out the fraction of monitored processes outside MPI
 * \param[in] frozen non-zero when nothing changed since the previous sample
 * \return the verdict
 */
sc__hang_verdict sc__hang_det_feed_frozen(sc__hang_det *d, double s_out, int frozen);

/** \brief Frees the detector's memory; safe on a zero-initialised one and
 * twice in a row. */
void sc__hang_det_free(sc__hang_det *d);

/** \brief The statistics of the last feed (all zero before the first). */
void sc__hang_det_stats(const sc__hang_det *d, sc__hang_stats *out);

/* ------------------------------------------------------------ frozen state
 *
 * The statistics need a model, and a model needs samples of a healthy run:
 * before it has 11 there is no threshold, and a hang that starts then
 * would fill it with its own samples. The monitor therefore also watches
 * whether the state is frozen: no rank went in or out of MPI, or to
 * another call, for a while (its age, the least over the ranks asked).
 * A healthy program changes state all the time; a hung one never again.
 *
 * - Frozen rule: a hang is declared when the state has been frozen for
 *   T_f with at least one rank inside MPI, whatever the model says (a
 *   program whose every rank computes outside MPI is not hung in MPI).
 * - Statistics: a streak of k suspicions is declared only once the state
 *   has also been frozen for T_s <= T_f, so that a streak made of several
 *   short waits of a loaded machine, or one wait of a rank the scheduler
 *   left out for a moment, is not a hang.
 *
 * Both limits grow with the load factor L (sc__hang_load_parse), so that
 * a rank that gets a tenth of a core takes ten times longer to show that
 * it moved, and with W, the longest frozen stretch with a rank inside MPI
 * this run has had and left again (a healthy wait that long is normal
 * here); W raises them by at most a factor 4.
 */

/** The frozen rule's limit without load: max(FROZEN_MIN, FROZEN_PER_I * I). */
#define SC__HANG_FROZEN_MIN 1.0
#define SC__HANG_FROZEN_PER_I 5.0
/** The statistics' limit without load: max(CONFIRM_MIN, CONFIRM_PER_I * I). */
#define SC__HANG_CONFIRM_MIN 0.5
#define SC__HANG_CONFIRM_PER_I 4.0
/** How far W may raise a limit above its base (a factor). */
#define SC__HANG_LEARN_MAX 4.0

/**
 * \brief T_f, the frozen state that makes a hang by itself:
 *        max(B, min(4 W, 4 B)) with B = L max(1 s, 5 I).
 *
 * \param[in] I the interval the monitor was started with, seconds
 * \param[in] load the load factor L (values below 1 count as 1)
 * \param[in] longest W, seconds (0 when none)
 * \return T_f in seconds
 */
double sc__hang_frozen_limit(double I, double load, double longest);

/**
 * \brief T_s, the frozen state a statistical verdict needs:
 *        min(T_f, max(L max(0.5 s, 4 I), 1.5 W)).
 *
 * \param[in] I the current interval (after any doubling), seconds
 * \param[in] I0 the interval the monitor was started with (for T_f)
 * \param[in] load the load factor L
 * \param[in] longest W, seconds
 * \return T_s in seconds
 */
double sc__hang_confirm_limit(double I, double I0, double load, double longest);

/**
 * \brief The load per CPU from the text of /proc/loadavg.
 *
 * *avg = load1 / ncpu, with load1 the first field (the one-minute
 * average); *now = (running - 1) / ncpu, with running the count before
 * the '/' of the fourth field (the tasks runnable now, the reader
 * included, hence - 1). The monitor's load factor over a freeze is
 * L = max(1, the largest *avg, the mean of *now) over its samples: the
 * average lags a load that just started, the count is noisy, and its mean
 * over the freeze follows the load the frozen ranks really had.
 *
 * \param[in] text the file's text, or NULL
 * \param[in] ncpu the CPUs this process may use; below 1 counts as 1
 * \param[out] avg the one-minute average per CPU (0 on failure)
 * \param[out] now the tasks runnable now per CPU, the reader left out
 *             (0 on failure)
 * \return 0, or -1 when text is NULL or not in that form
 */
int sc__hang_load_parse(const char *text, int ncpu, double *avg, double *now);

/**
 * \brief The paper's timeout baseline: a hang after K samples in a row
 * with s_out <= 0.
 *
 * \param[in,out] count the samples in a row so far, start it at 0
 * \param[in] s_out the sample
 * \param[in] K the samples in a row that make a hang
 * \return 1 when *count >= K, else 0
 */
int sc__hang_timeout_feed(int *count, double s_out, int K);

#endif /* SC_HANG_DETECT_H */
