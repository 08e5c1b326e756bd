/* Nim, a Tabletop game plugin written in C against include/tabletop_plugin.h,
 * without the Rust SDK: the walk-through of docs/plugin-abi.md.
 *
 * Two players take 1, 2 or 3 stones from one pile in turn; whoever takes the
 * last stone wins. Option `stones` (1-100, default 15) sets the pile.
 *
 *   cc -shared -fPIC -std=c99 -Wall -Wextra -I include \
 *      -o libnim.so examples/c-plugin/nim.c
 *
 * Action ids are the number of stones taken (1-3), written "1".."3".
 * The position text is "STONES NEXT" (seat to move, 0-based), or
 * "0 WINNER" once the pile is empty. */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tabletop_plugin.h"

/* What a TabletopStateHandle points to. The lent arrays (legal actions, a
 * failed ply's message) live here: valid until the next call on the handle. */
struct TabletopStateHandle {
    uint32_t stones;
    uint32_t next;   /* seat to move; after the end, the winner */
    uint64_t legal[3];
    char error[96];
};

static const char MANIFEST[] =
    "{\"name\":\"nim\",\"version\":\"1.0.0\",\"min_players\":2,\"max_players\":2,"
    "\"options\":[{\"name\":\"stones\",\"kind\":{\"Int\":{\"min\":1,\"max\":100}},"
    "\"default\":{\"Int\":15},\"description\":\"Stones in the pile at the start.\"}],"
    "\"rules_summary\":\"Take 1, 2 or 3 stones in turn; whoever takes the last stone wins.\","
    "\"simultaneous\":false,\"hidden_information\":false,\"chance\":false,"
    "\"removable_players\":false}";

/* ---- buffers: allocated here with malloc, freed by the host through free_buf */

static void put(TabletopPluginBuf *out, const char *text) {
    size_t len = strlen(text);
    uint8_t *bytes = malloc(len ? len : 1);
    if (out == NULL || bytes == NULL) {
        free(bytes);
        return;
    }
    memcpy(bytes, text, len);
    out->ptr = bytes;
    out->len = len;
    out->cap = len;
}

static int32_t fail(TabletopPluginBuf *out, int32_t code, const char *message) {
    put(out, message);
    return code;
}

static void free_buf(TabletopPluginBuf buf) { free(buf.ptr); }

static void set_logger(TabletopLogFn logger) { (void)logger; }

static int32_t manifest(TabletopPluginBuf *out) {
    put(out, MANIFEST);
    return TABLETOP_CODE_OK;
}

static const void *get_extension(TabletopStrRef id) {
    (void)id; /* Nim offers no extension. */
    return NULL;
}

/* ---- states */

static TabletopRawStatus status_of(const TabletopStateHandle *s) {
    TabletopRawStatus status = {TABLETOP_STATUS_TERMINAL, 0};
    if (s->stones > 0) {
        status.kind = TABLETOP_STATUS_TO_MOVE;
        status.movers = 1u << s->next;
    }
    return status;
}

static int equals(TabletopStrRef text, const char *word) {
    return text.ptr != NULL && text.len == strlen(word) && memcmp(text.ptr, word, text.len) == 0;
}

/* Reads a decimal number of at most 9 digits; -1 if the text is not one. */
static long number(const uint8_t *text, size_t len) {
    long value = 0;
    if (len == 0 || len > 9) return -1;
    for (size_t i = 0; i < len; i++) {
        if (text[i] < '0' || text[i] > '9') return -1;
        value = value * 10 + (text[i] - '0');
    }
    return value;
}

static int32_t new_state(uint32_t players, const TabletopRawOption *options, size_t option_count,
                         TabletopStrRef position, TabletopStateHandle **state_out,
                         TabletopRawStatus *status_out, TabletopPluginBuf *out) {
    long stones = 15, next = 0;
    if (players != 2) return fail(out, TABLETOP_CODE_INVALID_OPTION, "nim is for 2 players");
    for (size_t i = 0; i < option_count; i++) {
        if (!equals(options[i].name, "stones"))
            return fail(out, TABLETOP_CODE_INVALID_OPTION, "unknown option; nim has only `stones`");
        stones = number(options[i].value.ptr, options[i].value.len);
        if (stones < 1 || stones > 100)
            return fail(out, TABLETOP_CODE_INVALID_OPTION, "`stones` takes a whole number from 1 to 100");
    }
    if (position.ptr != NULL) {
        /* "STONES NEXT" */
        const uint8_t *space = memchr(position.ptr, ' ', position.len);
        if (space == NULL) return fail(out, TABLETOP_CODE_INVALID_POSITION, "a position is `STONES NEXT`");
        stones = number(position.ptr, (size_t)(space - position.ptr));
        next = number(space + 1, position.len - (size_t)(space - position.ptr) - 1);
        if (stones < 0 || stones > 100 || next < 0 || next > 1)
            return fail(out, TABLETOP_CODE_INVALID_POSITION, "a position is `STONES NEXT`: 0-100 and 0 or 1");
    }
    TabletopStateHandle *s = calloc(1, sizeof *s);
    if (s == NULL) return fail(out, TABLETOP_CODE_INTERNAL, "out of memory");
    s->stones = (uint32_t)stones;
    s->next = (uint32_t)next;
    *state_out = s;
    *status_out = status_of(s);
    return TABLETOP_CODE_OK;
}

static int32_t clone_state(const TabletopStateHandle *state, TabletopStateHandle **state_out,
                           TabletopPluginBuf *out) {
    TabletopStateHandle *copy = malloc(sizeof *copy);
    if (copy == NULL) return fail(out, TABLETOP_CODE_INTERNAL, "out of memory");
    memcpy(copy, state, sizeof *copy);
    *state_out = copy;
    return TABLETOP_CODE_OK;
}

static void free_state(TabletopStateHandle *state) { free(state); }

static int32_t status(const TabletopStateHandle *state, TabletopRawStatus *status_out,
                      TabletopPluginBuf *out) {
    (void)out;
    *status_out = status_of(state);
    return TABLETOP_CODE_OK;
}

/* Nim has no chance: chance is never to act. */
static int32_t chance_outcomes(TabletopStateHandle *state, uint32_t *kind_out,
                               const TabletopRawOutcome **outcomes_out, size_t *count_out,
                               TabletopPluginBuf *out) {
    (void)state, (void)kind_out, (void)outcomes_out, (void)count_out;
    return fail(out, TABLETOP_CODE_NOT_YOUR_TURN, "nim has no chance");
}

static int32_t results(const TabletopStateHandle *state, TabletopPluginBuf *out) {
    char text[96];
    if (state->stones > 0) return fail(out, TABLETOP_CODE_NOT_YOUR_TURN, "the game is not over");
    snprintf(text, sizeof text, "[{\"rank\":%u,\"score\":%u},{\"rank\":%u,\"score\":%u}]",
             state->next == 0 ? 1u : 2u, state->next == 0 ? 1u : 0u,
             state->next == 1 ? 1u : 2u, state->next == 1 ? 1u : 0u);
    put(out, text);
    return TABLETOP_CODE_OK;
}

/* Fills the handle's legal list for `player` and returns its length. */
static size_t fill_legal(TabletopStateHandle *s, uint32_t player) {
    size_t count = 0;
    if (s->stones == 0 || player != s->next) return 0;
    for (uint64_t take = 1; take <= 3 && take <= s->stones; take++) s->legal[count++] = take;
    return count;
}

/* The lent list lives in the handle, which this call may write. */
static int32_t legal_actions(TabletopStateHandle *state, uint32_t player, const uint64_t **ids_out,
                             size_t *count_out, TabletopPluginBuf *out) {
    (void)out;
    *count_out = fill_legal(state, player);
    *ids_out = state->legal;
    return TABLETOP_CODE_OK;
}

static TabletopRawPly ply_failed(TabletopStateHandle *s, int32_t code, const char *message) {
    TabletopRawPly answer;
    if (s == NULL) message = "null state handle";
    else {
        snprintf(s->error, sizeof s->error, "%s", message);
        message = s->error;
    }
    answer.lent = message;
    answer.word = (uint64_t)TABLETOP_PLY_FAILED | ((uint64_t)strlen(message) << 2) |
                  ((uint64_t)(uint32_t)code << 32);
    return answer;
}

/* The answer after a change: the new status and the list `lend` asks for. */
static TabletopRawPly ply_answer(TabletopStateHandle *s, uint32_t lend) {
    TabletopRawStatus st = status_of(s);
    size_t count = 0;
    if (st.kind == TABLETOP_STATUS_TO_MOVE && lend != TABLETOP_LEND_NOTHING)
        count = fill_legal(s, lend == TABLETOP_LEND_FIRST_MOVER ? s->next : lend);
    TabletopRawPly answer;
    answer.lent = s->legal;
    answer.word = (uint64_t)st.kind | ((uint64_t)count << 2) | ((uint64_t)st.movers << 32);
    return answer;
}

static TabletopRawPly ply(TabletopStateHandle *state, const TabletopRawMove *moves, size_t count,
                          uint32_t lend) {
    if (state == NULL) return ply_failed(NULL, TABLETOP_CODE_INTERNAL, "");
    if (state->stones == 0) return ply_failed(state, TABLETOP_CODE_NOT_YOUR_TURN, "the game is over");
    if (count != 1 || moves[0].player != state->next)
        return ply_failed(state, TABLETOP_CODE_NOT_YOUR_TURN, "one move, by the seat to move");
    if (moves[0].action < 1 || moves[0].action > 3 || moves[0].action > state->stones)
        return ply_failed(state, TABLETOP_CODE_ILLEGAL_ACTION, "take 1, 2 or 3 stones, no more than are left");
    state->stones -= (uint32_t)moves[0].action;
    if (state->stones > 0) state->next = 1 - state->next;
    return ply_answer(state, lend);
}

static TabletopRawPly apply_chance(TabletopStateHandle *state, uint64_t outcome, uint32_t lend) {
    (void)outcome, (void)lend;
    return ply_failed(state, TABLETOP_CODE_NOT_YOUR_TURN, "nim has no chance");
}

static int32_t view(const TabletopStateHandle *state, uint32_t viewer, TabletopPluginBuf *out) {
    char text[64];
    (void)viewer; /* nothing is hidden */
    if (state->stones > 0)
        snprintf(text, sizeof text, "{\"stones\":%u,\"to_move\":%u}", state->stones, state->next);
    else
        snprintf(text, sizeof text, "{\"stones\":0,\"winner\":%u}", state->next);
    put(out, text);
    return TABLETOP_CODE_OK;
}

static int32_t render_text(const TabletopStateHandle *state, uint32_t viewer,
                           TabletopPluginBuf *out) {
    char text[160];
    int n = snprintf(text, sizeof text, "stones: %u\n", state->stones);
    for (uint32_t i = 0; i < state->stones && n < (int)sizeof text - 2; i++) text[n++] = 'o';
    text[n++] = '\n';
    text[n] = '\0';
    (void)viewer;
    put(out, text);
    return TABLETOP_CODE_OK;
}

static int32_t event(const TabletopStateHandle *before, const TabletopRawTransition *transition,
                     const TabletopStateHandle *after, uint32_t viewer, TabletopPluginBuf *out) {
    char text[96];
    (void)after, (void)viewer;
    if (transition->kind != TABLETOP_TRANSITION_MOVES || transition->move_count != 1)
        return fail(out, TABLETOP_CODE_INTERNAL, "nim has only single moves");
    snprintf(text, sizeof text, "{\"type\":\"take\",\"player\":%u,\"took\":%u,\"left\":%u}",
             transition->moves[0].player, (unsigned)transition->moves[0].action,
             before->stones - (unsigned)transition->moves[0].action);
    put(out, text);
    return TABLETOP_CODE_OK;
}

static int32_t position(const TabletopStateHandle *state, TabletopPluginBuf *out) {
    char text[32];
    snprintf(text, sizeof text, "%u %u", state->stones, state->next);
    put(out, text);
    return TABLETOP_CODE_OK;
}

static int32_t actions_to_strings(const TabletopStateHandle *state, uint32_t player,
                                  const uint64_t *ids, size_t count, uint32_t *ends_out,
                                  TabletopPluginBuf *out) {
    char text[64];
    (void)state, (void)player;
    if (count > sizeof text) return fail(out, TABLETOP_CODE_INTERNAL, "too many actions at once");
    for (size_t i = 0; i < count; i++) {
        if (ids[i] < 1 || ids[i] > 3) return fail(out, TABLETOP_CODE_ILLEGAL_ACTION, "not a nim action");
        text[i] = (char)('0' + ids[i]);
        ends_out[i] = (uint32_t)(i + 1);
    }
    text[count] = '\0';
    if (count > 0) put(out, text);
    return TABLETOP_CODE_OK;
}

static int32_t parse_action(const TabletopStateHandle *state, uint32_t player, TabletopStrRef text,
                            uint64_t *action_out, TabletopPluginBuf *out) {
    long take = number(text.ptr, text.len);
    if (take < 1 || take > 3) return fail(out, TABLETOP_CODE_INVALID_NOTATION, "write 1, 2 or 3");
    if (state->stones == 0 || player != state->next)
        return fail(out, TABLETOP_CODE_NOT_YOUR_TURN, "it is not this seat's turn");
    if ((uint32_t)take > state->stones) return fail(out, TABLETOP_CODE_ILLEGAL_ACTION, "not that many stones left");
    *action_out = (uint64_t)take;
    return TABLETOP_CODE_OK;
}

static const TabletopPluginApi API = {
    .abi_major = TABLETOP_ABI_MAJOR,
    .abi_minor = TABLETOP_ABI_MINOR,
    .size = sizeof(TabletopPluginApi),
    .free_buf = free_buf,
    .set_logger = set_logger,
    .manifest = manifest,
    .get_extension = get_extension,
    .new_state = new_state,
    .clone_state = clone_state,
    .free_state = free_state,
    .status = status,
    .chance_outcomes = chance_outcomes,
    .results = results,
    .legal_actions = legal_actions,
    .ply = ply,
    .apply_chance = apply_chance,
    .view = view,
    .render_text = render_text,
    .event = event,
    .position = position,
    .actions_to_strings = actions_to_strings,
    .parse_action = parse_action,
};

/* The one exported symbol. */
TABLETOP_EXPORT const TabletopPluginApi *tabletop_plugin_entry(void) { return &API; }
