/* Connect Four, a Tabletop game plugin written in C against
 * include/tabletop_plugin.h alone, offering every extension the host calls:
 * remove-player, expand-notation, resample, seat-names, seats-out,
 * explain-refusal, svg-board, action-targets and evaluate.
 *
 * Two players, Red (seat 0) and Yellow (seat 1), drop discs into a board of
 * 7 columns and 6 rows; a disc falls to the lowest free cell of its column.
 * Whoever first has four in a row (across, up or diagonally) wins; a full
 * board is a draw.
 *
 *   cc -shared -fPIC -std=c99 -Wall -Wextra -I include \
 *      -o libconnect_four.so examples/c-plugin/connect_four.c
 *
 * Action id c (0-6) drops into column c, written "a".."g". The board's SVG
 * has one element per column, `id="col-a"` .. `id="col-g"`: the target of
 * the action that drops there. The position text is the six rows from the
 * top, `.` empty, `R` red, `Y` yellow, joined by `/`, then ` -0` or ` -1`
 * when that seat was taken out of the match. */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tabletop_plugin.h"

#define COLUMNS 7
#define ROWS 6
#define EMPTY 0
#define NOBODY (-1)
#define DRAW 2

struct TabletopStateHandle {
    /* cells[row][column], row 0 at the bottom: EMPTY, or 1 + seat. */
    uint8_t cells[ROWS][COLUMNS];
    uint8_t height[COLUMNS];
    uint32_t next;   /* the seat to move */
    int32_t winner;  /* NOBODY while playing, a seat, or DRAW */
    int32_t removed; /* NOBODY, or the seat taken out with remove_player */
    /* Lent to the host: valid until the next call with this handle. */
    uint64_t legal[COLUMNS];
    char error[128];
};

static const char MANIFEST[] =
    "{\"name\":\"connect-four\",\"version\":\"1.0.0\",\"min_players\":2,\"max_players\":2,"
    "\"options\":[],"
    "\"rules_summary\":\"Drop discs in turn into a 7x6 board; four in a row wins.\","
    "\"simultaneous\":false,\"hidden_information\":false,\"chance\":false,"
    "\"removable_players\":true}";

/* ---- buffers: allocated here with malloc, released by the host with free_buf */

static void put_bytes(TabletopPluginBuf *out, const char *text, size_t len) {
    uint8_t *bytes = malloc(len ? len : 1);
    if (bytes == NULL) return;
    memcpy(bytes, text, len);
    out->ptr = bytes;
    out->len = len;
    out->cap = len;
}

static void put(TabletopPluginBuf *out, const char *text) { put_bytes(out, text, strlen(text)); }

static int32_t fail(TabletopPluginBuf *out, int32_t code, const char *message) {
    put(out, message);
    return code;
}

static void free_buf(TabletopPluginBuf buf) { free(buf.ptr); }

static TabletopLogFn logger;

static void set_logger(TabletopLogFn sink) { logger = sink; }

static int32_t manifest(TabletopPluginBuf *out) {
    put(out, MANIFEST);
    return TABLETOP_CODE_OK;
}

/* ---- the rules */

static int four_through(const TabletopStateHandle *s, int row, int column) {
    static const int directions[4][2] = {{0, 1}, {1, 0}, {1, 1}, {1, -1}};
    int piece = s->cells[row][column];
    for (int d = 0; d < 4; d++) {
        int run = 1;
        for (int sign = -1; sign <= 1; sign += 2) {
            int r = row + sign * directions[d][0], c = column + sign * directions[d][1];
            while (r >= 0 && r < ROWS && c >= 0 && c < COLUMNS && s->cells[r][c] == piece) {
                run++;
                r += sign * directions[d][0];
                c += sign * directions[d][1];
            }
        }
        if (run >= 4) return 1;
    }
    return 0;
}

static int board_full(const TabletopStateHandle *s) {
    for (int c = 0; c < COLUMNS; c++)
        if (s->height[c] < ROWS) return 0;
    return 1;
}

static TabletopRawStatus status_of(const TabletopStateHandle *s) {
    TabletopRawStatus status = {TABLETOP_STATUS_TERMINAL, 0};
    if (s->winner == NOBODY) {
        status.kind = TABLETOP_STATUS_TO_MOVE;
        status.movers = 1u << s->next;
    }
    return status;
}

static int legal_column(const TabletopStateHandle *s, uint32_t player, uint64_t column) {
    return s->winner == NOBODY && player == s->next && column < COLUMNS &&
           s->height[column] < ROWS;
}

/* Drops a disc of the seat to move into `column`, which is legal. */
static void drop(TabletopStateHandle *s, int column) {
    int row = s->height[column]++;
    s->cells[row][column] = (uint8_t)(1 + s->next);
    if (four_through(s, row, column)) s->winner = (int32_t)s->next;
    else if (board_full(s)) s->winner = DRAW;
    /* The next seat follows from the discs alone, as a position text reads
     * it: it turns after the last drop too. */
    s->next = 1 - s->next;
}

/* Why `player` may not drop into `column` now, as a reason code and a
 * sentence; NULL when they may. */
static const char *refusal(const TabletopStateHandle *s, uint32_t player, uint64_t column,
                           const char **message) {
    if (s->winner != NOBODY) {
        *message = "The game is over: nobody drops another disc.";
        return "GAME_OVER";
    }
    if (player != s->next) {
        *message = "It is the other player's turn: players drop one disc each in turn.";
        return "NOT_YOUR_TURN";
    }
    if (column >= COLUMNS) {
        *message = "The board has seven columns, a to g.";
        return "NO_SUCH_COLUMN";
    }
    if (s->height[column] >= ROWS) {
        *message = "That column is full: a disc goes only into a column with a free cell.";
        return "COLUMN_FULL";
    }
    return NULL;
}

/* ---- states */

static int32_t new_state(uint32_t players, const TabletopRawOption *options, size_t option_count,
                         TabletopStrRef position, TabletopStateHandle **state_out,
                         TabletopRawStatus *status_out, TabletopPluginBuf *out) {
    int discs[2] = {0, 0};
    (void)options;
    if (players != 2) return fail(out, TABLETOP_CODE_INVALID_OPTION, "connect-four is for 2 players");
    if (option_count != 0)
        return fail(out, TABLETOP_CODE_INVALID_OPTION, "connect-four has no options");
    TabletopStateHandle *s = calloc(1, sizeof *s);
    if (s == NULL) return fail(out, TABLETOP_CODE_INTERNAL, "out of memory");
    s->winner = NOBODY;
    s->removed = NOBODY;
    if (position.ptr != NULL) {
        /* ROWS rows of COLUMNS cells from the top, `/` between, then " -S". */
        const size_t board = ROWS * (COLUMNS + 1) - 1;
        const uint8_t *p = position.ptr;
        int bad = position.len != board && position.len != board + 3;
        for (size_t at = 0; !bad && at < board; at++) {
            int row = ROWS - 1 - (int)(at / (COLUMNS + 1)), c = (int)(at % (COLUMNS + 1));
            if (c == COLUMNS) bad = p[at] != '/';
            else if (p[at] == 'R' || p[at] == 'Y') {
                s->cells[row][c] = p[at] == 'R' ? 1 : 2;
                discs[s->cells[row][c] - 1]++;
            } else bad = p[at] != '.';
        }
        /* Discs lie on the bottom or on another disc. */
        for (int c = 0; !bad && c < COLUMNS; c++) {
            while (s->height[c] < ROWS && s->cells[s->height[c]][c] != EMPTY) s->height[c]++;
            for (int row = s->height[c]; row < ROWS; row++)
                if (s->cells[row][c] != EMPTY) bad = 1;
        }
        if (!bad && position.len == board + 3) {
            if (p[board] != ' ' || p[board + 1] != '-' || (p[board + 2] != '0' && p[board + 2] != '1'))
                bad = 1;
            else s->removed = p[board + 2] - '0';
        }
        if (!bad && discs[0] != discs[1] && discs[0] != discs[1] + 1) bad = 1;
        if (bad) {
            free(s);
            return fail(out, TABLETOP_CODE_INVALID_POSITION,
                        "a position is six rows of `.RY` from the top joined by `/`, "
                        "red having as many discs as yellow or one more");
        }
        s->next = discs[0] > discs[1] ? 1 : 0;
        for (int row = 0; row < ROWS; row++)
            for (int c = 0; c < COLUMNS; c++)
                if (s->cells[row][c] != EMPTY && four_through(s, row, c))
                    s->winner = s->cells[row][c] - 1;
        if (s->removed != NOBODY) s->winner = 1 - s->removed;
        else if (s->winner == NOBODY && board_full(s)) s->winner = DRAW;
    }
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

/* A game without chance: chance is never to act. */
static int32_t chance_outcomes(TabletopStateHandle *state, uint32_t *kind_out,
                               const TabletopRawOutcome **outcomes_out, size_t *count_out,
                               TabletopPluginBuf *out) {
    (void)state, (void)kind_out, (void)outcomes_out, (void)count_out;
    return fail(out, TABLETOP_CODE_NOT_YOUR_TURN, "connect-four has no chance");
}

static int32_t results(const TabletopStateHandle *state, TabletopPluginBuf *out) {
    if (state->winner == NOBODY) return fail(out, TABLETOP_CODE_NOT_YOUR_TURN, "the game is not over");
    if (state->winner == DRAW)
        put(out, "[{\"rank\":1,\"score\":0.5},{\"rank\":1,\"score\":0.5}]");
    else if (state->winner == 0)
        put(out, "[{\"rank\":1,\"score\":1.0},{\"rank\":2,\"score\":0.0}]");
    else
        put(out, "[{\"rank\":2,\"score\":0.0},{\"rank\":1,\"score\":1.0}]");
    return TABLETOP_CODE_OK;
}

/* Fills the handle's lent list for `player` and returns its length. */
static size_t fill_legal(TabletopStateHandle *s, uint32_t player) {
    size_t count = 0;
    for (uint64_t c = 0; c < COLUMNS; c++)
        if (legal_column(s, player, c)) s->legal[count++] = c;
    return count;
}

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

static TabletopRawPly ply_answer(TabletopStateHandle *s, uint32_t lend) {
    TabletopRawStatus st = status_of(s);
    size_t count = 0;
    if (st.kind == TABLETOP_STATUS_TO_MOVE)
        count = fill_legal(s, lend == TABLETOP_LEND_FIRST_MOVER ? s->next : lend);
    TabletopRawPly answer;
    answer.lent = s->legal;
    answer.word = (uint64_t)st.kind | ((uint64_t)count << 2) | ((uint64_t)st.movers << 32);
    return answer;
}

static TabletopRawPly ply(TabletopStateHandle *state, const TabletopRawMove *moves, size_t count,
                          uint32_t lend) {
    const char *message;
    if (state == NULL) return ply_failed(NULL, TABLETOP_CODE_INTERNAL, "");
    if (state->winner != NOBODY) return ply_failed(state, TABLETOP_CODE_NOT_YOUR_TURN, "the game is over");
    if (count != 1 || moves[0].player != state->next)
        return ply_failed(state, TABLETOP_CODE_NOT_YOUR_TURN, "one move, by the seat to move");
    if (refusal(state, moves[0].player, moves[0].action, &message) != NULL)
        return ply_failed(state, TABLETOP_CODE_ILLEGAL_ACTION, message);
    drop(state, (int)moves[0].action);
    return ply_answer(state, lend);
}

static TabletopRawPly apply_chance(TabletopStateHandle *state, uint64_t outcome, uint32_t lend) {
    (void)outcome, (void)lend;
    return ply_failed(state, TABLETOP_CODE_NOT_YOUR_TURN, "connect-four has no chance");
}

static void board_rows(const TabletopStateHandle *s, char *text) {
    static const char marks[] = ".RY";
    for (int row = ROWS - 1; row >= 0; row--) {
        for (int c = 0; c < COLUMNS; c++) *text++ = marks[s->cells[row][c]];
        *text++ = row > 0 ? '/' : '\0';
    }
}

static int32_t view(const TabletopStateHandle *state, uint32_t viewer, TabletopPluginBuf *out) {
    char rows[ROWS * (COLUMNS + 1)], text[160];
    (void)viewer; /* nothing is hidden */
    board_rows(state, rows);
    if (state->winner == NOBODY)
        snprintf(text, sizeof text, "{\"board\":\"%s\",\"to_move\":%u}", rows, state->next);
    else if (state->winner == DRAW)
        snprintf(text, sizeof text, "{\"board\":\"%s\",\"draw\":true}", rows);
    else
        snprintf(text, sizeof text, "{\"board\":\"%s\",\"winner\":%d}", rows, state->winner);
    put(out, text);
    return TABLETOP_CODE_OK;
}

static int32_t render_text(const TabletopStateHandle *state, uint32_t viewer,
                           TabletopPluginBuf *out) {
    char text[ROWS * (COLUMNS + 1) + 16];
    size_t n = 0;
    (void)viewer;
    for (int row = ROWS - 1; row >= 0; row--) {
        for (int c = 0; c < COLUMNS; c++) text[n++] = ".RY"[state->cells[row][c]];
        text[n++] = '\n';
    }
    memcpy(text + n, "abcdefg\n", 9);
    put(out, text);
    return TABLETOP_CODE_OK;
}

static int32_t event(const TabletopStateHandle *before, const TabletopRawTransition *transition,
                     const TabletopStateHandle *after, uint32_t viewer, TabletopPluginBuf *out) {
    char text[96];
    (void)after, (void)viewer;
    if (transition->kind != TABLETOP_TRANSITION_MOVES || transition->move_count != 1 ||
        transition->moves[0].action >= COLUMNS)
        return fail(out, TABLETOP_CODE_INTERNAL, "connect-four has only single drops");
    snprintf(text, sizeof text, "{\"type\":\"drop\",\"player\":%u,\"column\":\"%c\",\"row\":%u}",
             transition->moves[0].player, (char)('a' + transition->moves[0].action),
             (unsigned)before->height[transition->moves[0].action]);
    put(out, text);
    return TABLETOP_CODE_OK;
}

static int32_t position(const TabletopStateHandle *state, TabletopPluginBuf *out) {
    char text[ROWS * (COLUMNS + 1) + 4];
    board_rows(state, text);
    if (state->removed != NOBODY) {
        size_t n = strlen(text);
        text[n] = ' ';
        text[n + 1] = '-';
        text[n + 2] = (char)('0' + state->removed);
        text[n + 3] = '\0';
    }
    put(out, text);
    return TABLETOP_CODE_OK;
}

static int32_t actions_to_strings(const TabletopStateHandle *state, uint32_t player,
                                  const uint64_t *ids, size_t count, uint32_t *ends_out,
                                  TabletopPluginBuf *out) {
    char *text;
    (void)state, (void)player;
    if (count == 0) return TABLETOP_CODE_OK;
    text = malloc(count);
    if (text == NULL) return fail(out, TABLETOP_CODE_INTERNAL, "out of memory");
    for (size_t i = 0; i < count; i++) {
        if (ids[i] >= COLUMNS) {
            free(text);
            return fail(out, TABLETOP_CODE_ILLEGAL_ACTION, "not a column of the board");
        }
        text[i] = (char)('a' + ids[i]);
        ends_out[i] = (uint32_t)(i + 1);
    }
    out->ptr = (uint8_t *)text;
    out->len = count;
    out->cap = count;
    return TABLETOP_CODE_OK;
}

/* The column a text names, or -1. */
static int column_of(TabletopStrRef text) {
    if (text.ptr == NULL || text.len != 1 || text.ptr[0] < 'a' || text.ptr[0] > 'g') return -1;
    return text.ptr[0] - 'a';
}

static int32_t parse_action(const TabletopStateHandle *state, uint32_t player, TabletopStrRef text,
                            uint64_t *action_out, TabletopPluginBuf *out) {
    const char *message;
    int column = column_of(text);
    if (column < 0) return fail(out, TABLETOP_CODE_INVALID_NOTATION, "name a column, a to g");
    if (state->winner != NOBODY || player != state->next)
        return fail(out, TABLETOP_CODE_NOT_YOUR_TURN, "it is not this seat's turn");
    if (refusal(state, player, (uint64_t)column, &message) != NULL)
        return fail(out, TABLETOP_CODE_ILLEGAL_ACTION, message);
    *action_out = (uint64_t)column;
    return TABLETOP_CODE_OK;
}

/* ---- extensions */

static int32_t remove_player(TabletopStateHandle *state, uint32_t player,
                             TabletopRawStatus *status_out, TabletopPluginBuf *out) {
    if (player > 1) return fail(out, TABLETOP_CODE_ILLEGAL_ACTION, "connect-four has seats 0 and 1");
    if (state->winner != NOBODY) return fail(out, TABLETOP_CODE_NOT_YOUR_TURN, "the game is over");
    state->removed = (int32_t)player;
    state->winner = (int32_t)(1 - player);
    *status_out = status_of(state);
    return TABLETOP_CODE_OK;
}

/* Connect Four has no shorthands: every text is read by parse_action. */
static int32_t expand_notation(const TabletopStateHandle *state, uint32_t player,
                               TabletopStrRef text, TabletopPluginBuf *out) {
    (void)state, (void)player, (void)text, (void)out;
    return TABLETOP_CODE_OK;
}

/* Nothing is hidden: every world consistent with a viewer's knowledge is the
 * state itself. */
static int32_t resample(const TabletopStateHandle *state, uint32_t viewer, uint64_t random,
                        TabletopStateHandle **state_out, TabletopPluginBuf *out) {
    (void)viewer, (void)random;
    return clone_state(state, state_out, out);
}

static int32_t seat_names(uint32_t players, TabletopPluginBuf *out) {
    if (players != 2) return fail(out, TABLETOP_CODE_INVALID_OPTION, "connect-four is for 2 players");
    put(out, "[\"Red\",\"Yellow\"]");
    return TABLETOP_CODE_OK;
}

static int32_t seats_out(const TabletopStateHandle *state, TabletopPluginBuf *out) {
    char text[64];
    if (state->removed == NOBODY) put(out, "[]");
    else {
        snprintf(text, sizeof text, "[{\"seat\":%d,\"reason\":\"left the match\"}]", state->removed);
        put(out, text);
    }
    return TABLETOP_CODE_OK;
}

static void put_refusal(TabletopPluginBuf *out, int notation, const char *reason,
                        const char *message) {
    char text[256];
    snprintf(text, sizeof text, "{\"notation\":%s,\"reason\":\"%s\",\"message\":\"%s\"}",
             notation ? "true" : "false", reason, message);
    put(out, text);
}

static int32_t explain_action(const TabletopStateHandle *state, uint32_t player, uint64_t action,
                              TabletopPluginBuf *out) {
    const char *message;
    const char *reason = refusal(state, player, action, &message);
    if (reason != NULL) put_refusal(out, 0, reason, message);
    return TABLETOP_CODE_OK;
}

static int32_t explain_notation(const TabletopStateHandle *state, uint32_t player,
                                TabletopStrRef text, TabletopPluginBuf *out) {
    int column = column_of(text);
    if (column < 0) {
        put_refusal(out, 1, "NOT_A_COLUMN", "A move names a column by its letter, a to g.");
        return TABLETOP_CODE_OK;
    }
    return explain_action(state, player, (uint64_t)column, out);
}

static int32_t action_space(const TabletopStateHandle *state, uint64_t *count_out,
                            TabletopPluginBuf *out) {
    (void)state, (void)out;
    *count_out = COLUMNS;
    return TABLETOP_CODE_OK;
}

static int32_t render_svg(const TabletopStateHandle *state, uint32_t viewer, TabletopPluginBuf *out) {
    static const char *fills[] = {"#ffffff", "#d62828", "#f7c948"};
    char *svg = malloc(16384);
    size_t n = 0;
    (void)viewer;
    if (svg == NULL) return fail(out, TABLETOP_CODE_INTERNAL, "out of memory");
    n += (size_t)sprintf(svg + n,
                         "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %d %d\">"
                         "<rect width=\"%d\" height=\"%d\" fill=\"#1d4ed8\"/>",
                         COLUMNS * 100, ROWS * 100, COLUMNS * 100, ROWS * 100);
    for (int c = 0; c < COLUMNS; c++) {
        n += (size_t)sprintf(svg + n,
                             "<g id=\"col-%c\"><rect x=\"%d\" y=\"0\" width=\"100\" "
                             "height=\"%d\" fill=\"#1d4ed8\"/>",
                             'a' + c, c * 100, ROWS * 100);
        for (int row = 0; row < ROWS; row++)
            n += (size_t)sprintf(svg + n, "<circle cx=\"%d\" cy=\"%d\" r=\"40\" fill=\"%s\"/>",
                                 c * 100 + 50, (ROWS - 1 - row) * 100 + 50,
                                 fills[state->cells[row][c]]);
        n += (size_t)sprintf(svg + n, "</g>");
    }
    n += (size_t)sprintf(svg + n, "</svg>");
    out->ptr = (uint8_t *)svg;
    out->len = n;
    out->cap = 16384;
    return TABLETOP_CODE_OK;
}

static int32_t action_targets(const TabletopStateHandle *state, uint32_t player, const uint64_t *ids,
                              size_t count, TabletopPluginBuf *out) {
    char *text = malloc(count * 12 + 3);
    size_t n = 0;
    (void)state, (void)player;
    if (text == NULL) return fail(out, TABLETOP_CODE_INTERNAL, "out of memory");
    text[n++] = '[';
    for (size_t i = 0; i < count; i++) {
        if (i > 0) text[n++] = ',';
        if (ids[i] < COLUMNS) n += (size_t)sprintf(text + n, "[\"col-%c\"]", (char)('a' + ids[i]));
        else n += (size_t)sprintf(text + n, "[]");
    }
    text[n++] = ']';
    out->ptr = (uint8_t *)text;
    out->len = n;
    out->cap = count * 12 + 3;
    return TABLETOP_CODE_OK;
}

/* Each seat's chances: the balance of the lines of four still open to one
 * player only, weighted by how many discs they hold. */
static int32_t evaluate(const TabletopStateHandle *state, double *values_out, size_t count,
                        TabletopPluginBuf *out) {
    static const int directions[4][2] = {{0, 1}, {1, 0}, {1, 1}, {1, -1}};
    double score[2] = {0, 0}, lead;
    if (count != 2) return fail(out, TABLETOP_CODE_INTERNAL, "connect-four has 2 seats");
    if (state->winner != NOBODY) {
        values_out[0] = state->winner == DRAW ? 0.5 : state->winner == 0 ? 1.0 : 0.0;
        values_out[1] = 1.0 - values_out[0];
        return TABLETOP_CODE_OK;
    }
    for (int row = 0; row < ROWS; row++)
        for (int c = 0; c < COLUMNS; c++)
            for (int d = 0; d < 4; d++) {
                int end_row = row + 3 * directions[d][0], end_c = c + 3 * directions[d][1];
                int held[3] = {0, 0, 0};
                if (end_row >= ROWS || end_c < 0 || end_c >= COLUMNS) continue;
                for (int k = 0; k < 4; k++)
                    held[state->cells[row + k * directions[d][0]][c + k * directions[d][1]]]++;
                if (held[1] > 0 && held[2] == 0) score[0] += held[1] * held[1];
                if (held[2] > 0 && held[1] == 0) score[1] += held[2] * held[2];
            }
    lead = (score[0] - score[1]) / 16.0;
    values_out[0] = 0.5 + 0.5 * lead / (1.0 + (lead < 0 ? -lead : lead));
    values_out[1] = 1.0 - values_out[0];
    return TABLETOP_CODE_OK;
}

static const TabletopRemovePlayerExt REMOVE_PLAYER = {remove_player};
static const TabletopExpandNotationExt EXPAND_NOTATION = {expand_notation};
static const TabletopResampleExt RESAMPLE = {resample};
static const TabletopSeatNamesExt SEAT_NAMES = {seat_names};
static const TabletopSeatsOutExt SEATS_OUT = {seats_out};
static const TabletopExplainRefusalExt EXPLAIN_REFUSAL = {explain_action, explain_notation,
                                                          action_space};
static const TabletopSvgBoardExt SVG_BOARD = {render_svg};
static const TabletopActionTargetsExt ACTION_TARGETS = {action_targets};
static const TabletopEvaluateExt EVALUATE = {evaluate};

static int is_id(TabletopStrRef id, const char *name) {
    return id.ptr != NULL && id.len == strlen(name) && memcmp(id.ptr, name, id.len) == 0;
}

static const void *get_extension(TabletopStrRef id) {
    if (is_id(id, TABLETOP_EXT_REMOVE_PLAYER)) return &REMOVE_PLAYER;
    if (is_id(id, TABLETOP_EXT_EXPAND_NOTATION)) return &EXPAND_NOTATION;
    if (is_id(id, TABLETOP_EXT_RESAMPLE)) return &RESAMPLE;
    if (is_id(id, TABLETOP_EXT_SEAT_NAMES)) return &SEAT_NAMES;
    if (is_id(id, TABLETOP_EXT_SEATS_OUT)) return &SEATS_OUT;
    if (is_id(id, TABLETOP_EXT_EXPLAIN_REFUSAL)) return &EXPLAIN_REFUSAL;
    if (is_id(id, TABLETOP_EXT_SVG_BOARD)) return &SVG_BOARD;
    if (is_id(id, TABLETOP_EXT_ACTION_TARGETS)) return &ACTION_TARGETS;
    if (is_id(id, TABLETOP_EXT_EVALUATE)) return &EVALUATE;
    return NULL;
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

TABLETOP_EXPORT const TabletopPluginApi *tabletop_plugin_entry(void) { return &API; }
