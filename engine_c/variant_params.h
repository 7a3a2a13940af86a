/* variant_params.h — the variants' evaluation weights (VariantParams, variant_eval.h);
 * included only by variant_eval.c. Set by hand, or written by engine_c/tools/tune.c
 * --variant NAME (Texel-tuned, one variant's group at a time, the others copied);
 * see docs/tuning.md "The variants' weights". Do not edit by hand. */
const VariantParams VariantDefaultParams = {
    /* kingofthehill: hand-set */
    .koth_dist = {0, 180, 90, 40, 15},
    .koth_win_in_one = 3000,
    .koth_threat_to_win = 250,
    /* 3check: hand-set */
    .threecheck_given_1 = 250,
    .threecheck_given_2 = 700,
    .threecheck_ready = 25,
    .threecheck_safe_check = 30,
    .threecheck_king_zone = 20,
    .threecheck_win_in_one = 3000,
    .threecheck_threat_to_win = 250,
    /* crazyhouse: hand-set (Fairy-Stockfish's classical king danger in centipawns) */
    .crazyhouse_hand = {0, 120, 330, 330, 450, 850},
    .crazyhouse_attack_weight = {0, 0, 81, 52, 44, 10},
    .crazyhouse_safe_check = {0, 600, 803, 639, 1087, 759},
    .crazyhouse_ring_weak = 366,
    .crazyhouse_unsafe_check = 148,
    .crazyhouse_ring_hits = 103,
    .crazyhouse_flank_attack = 23,
    .crazyhouse_flank_defense = 4,
    .crazyhouse_knight_guard = 100,
    .crazyhouse_danger_cap = 3500,
    .crazyhouse_danger_div = 10000,
    .crazyhouse_drop_square = 2,
    /* atomic: hand-set */
    .atomic_next_to_king = 12,
    .atomic_kings_touch = 10,
    .atomic_win_in_one = 3000,
    .atomic_threat_to_win = 250,
    /* antichess: hand-set */
    .antichess_value = {0, 100, 160, 180, 240, 260, 120},
    .antichess_mobility = 4,
    .antichess_attacked = 10,
    .antichess_tempo = 15,
    .antichess_must_take = 900,
    .antichess_offer = 90,
    .antichess_offer_lone = 90,
    /* racingkings: hand-set */
    .racingkings_value = {0, 0, 300, 320, 480, 900},
    .racingkings_rank = {0, 25, 60, 110, 180, 280, 430, 0},
    .racingkings_free_step = 25,
    .racingkings_blocked = 60,
    .racingkings_race = {0, 250, 150, 70, 30},
    .racingkings_win_in_one = 3000,
    .racingkings_tempo = 15,
    /* horde: balance and pawn fitted to Fairy-Stockfish's scores (strength.md), the rest hand-set */
    .horde_balance = 550,
    .horde_pawn = 30,
    .horde_lone_file = 60,
    .horde_breakthrough = 35,
};
