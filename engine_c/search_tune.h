/* search_tune.h — a tuning build's search constants (-DPB_TUNE).
 *
 * Each PB_PARAM of search_tunables.h is an int holding its default until
 * search_tune_load_env() reads PIBOT_TUNE ("NAME=VALUE,NAME=VALUE"), once,
 * before the search's tables are built. Ordinary builds compile the
 * constants in and have none of this. Used by tools/tune/spsa.py.
 */
#ifndef PB_SEARCH_TUNE_H
#define PB_SEARCH_TUNE_H

#ifdef PB_TUNE
/* 0 on success; -1 (with a message on stderr naming the bad entry) if
 * PIBOT_TUNE names an unknown constant or a value outside its range: the
 * defaults then stay, so a typo cannot go unnoticed as a silent default. */
int search_tune_load_env(void);
#endif

#endif
