/*
 * The streaming scenario's sockets held by one native process
 * (bench/streaming_native.ts builds and drives it): raw TCP connections
 * speaking just enough WebSocket (RFC 6455) to be a client, on one epoll
 * loop. Deno's clients (its WebSocket, or a minimal client on its TCP
 * reads, tried) cost 13-14 us of the shared cores per frame, 130-145 ms a
 * post to 10,000 sockets, on the cores the server sends with; this costs
 * about 5, most of it the kernel's receiving end of the loopback.
 *
 * What counts is what the Deno clients count: a delivery is stamped
 * (CLOCK_MONOTONIC) when the read that completes its frame returns, and
 * only a complete, unfragmented text frame that begins as an `update` frame
 * of the `user` stream with a status id counts. Socket 0's update frames are
 * also handed to the bench whole, which parses them as JSON.
 *
 * Lines in (stdin): `open <host> <port> <n>` then n lines `<path>`;
 * `clock`; `results`; `close`. Lines out (stdout): `opened` or
 * `failed <why>`; `c <id> <count>` (sockets that have the status, every
 * 10 ms while they change); `clock <ms>`; for `results`, `a <id> <ms|->...`
 * per status, `d <duplicates>`, `s <silent>`, `o <open>`, `x <count> <why>`
 * per way sockets closed early, `e`; `f <frame>` for socket 0's frames;
 * `closed`.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAX_IDS 256
#define MAX_CLOSE_KINDS 16
static const char UPDATE_PREFIX[] =
    "{\"stream\":[\"user\"],\"event\":\"update\",\"payload\":\"{\\\"id\\\":\\\"";

typedef struct {
  int fd;
  int open;
  unsigned char *buf;
  size_t len, cap;
} Sock;

typedef struct {
  char id[32];
  double *at; /* per socket, ms; NaN: none */
  int count;
  int reported;
} Status;

static Sock *socks;
static int nsocks;
static Status ids[MAX_IDS];
static int nids;
static long duplicates;
static int closing;
static char close_why[MAX_CLOSE_KINDS][64];
static int close_n[MAX_CLOSE_KINDS];
static int nclose_kinds;
static int ep;

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void write_all(int fd, const unsigned char *p, size_t n) {
  while (n > 0) {
    ssize_t w = write(fd, p, n);
    if (w < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      return;
    }
    p += w;
    n -= (size_t)w;
  }
}

/* A masked client frame; payloads here are under 126 bytes. */
static void send_frame(int fd, int opcode, const unsigned char *payload, size_t n) {
  unsigned char f[6 + 125];
  unsigned char mask[4];
  for (int i = 0; i < 4; i++) mask[i] = (unsigned char)rand();
  if (n > 125) n = 125;
  f[0] = 0x80 | opcode;
  f[1] = 0x80 | (unsigned char)n;
  memcpy(f + 2, mask, 4);
  for (size_t i = 0; i < n; i++) f[6 + i] = payload[i] ^ mask[i & 3];
  write_all(fd, f, 6 + n);
}

static void closed_early(Sock *s, const char *why) {
  if (!s->open) return;
  s->open = 0;
  epoll_ctl(ep, EPOLL_CTL_DEL, s->fd, NULL);
  close(s->fd);
  if (closing) return;
  for (int i = 0; i < nclose_kinds; i++) {
    if (strcmp(close_why[i], why) == 0) {
      close_n[i]++;
      return;
    }
  }
  if (nclose_kinds < MAX_CLOSE_KINDS) {
    snprintf(close_why[nclose_kinds], sizeof close_why[0], "%s", why);
    close_n[nclose_kinds++] = 1;
  }
}

static void arrived(int index, const char *id, size_t idlen, double at) {
  Status *st = NULL;
  for (int i = 0; i < nids; i++) {
    if (strlen(ids[i].id) == idlen && memcmp(ids[i].id, id, idlen) == 0) {
      st = &ids[i];
      break;
    }
  }
  if (!st) {
    if (nids == MAX_IDS || idlen >= sizeof ids[0].id) return;
    st = &ids[nids++];
    memcpy(st->id, id, idlen);
    st->id[idlen] = 0;
    st->at = malloc(sizeof(double) * nsocks);
    for (int i = 0; i < nsocks; i++) st->at[i] = -1;
  }
  if (st->at[index] >= 0) {
    duplicates++;
    return;
  }
  st->at[index] = at;
  st->count++;
}

static void text_frame(int index, const unsigned char *p, size_t n, double at) {
  size_t plen = sizeof UPDATE_PREFIX - 1;
  if (n <= plen || memcmp(p, UPDATE_PREFIX, plen) != 0) return;
  size_t i = plen;
  while (i < n && p[i] >= '0' && p[i] <= '9') i++;
  if (i == plen || i + 1 >= n || p[i] != '\\' || p[i + 1] != '"') return;
  if (index == 0) {
    fputs("f ", stdout);
    fwrite(p, 1, n, stdout);
    fputc('\n', stdout);
  }
  arrived(index, (const char *)p + plen, i - plen, at);
}

/* Handles the complete frames in the socket's buffer; keeps the rest. */
static void frames(int index, double at) {
  Sock *s = &socks[index];
  size_t off = 0;
  while (s->len - off >= 2) {
    unsigned char *f = s->buf + off;
    int fin = f[0] & 0x80, opcode = f[0] & 0x0f;
    uint64_t n = f[1] & 0x7f;
    size_t header = 2;
    if (n == 126) {
      if (s->len - off < 4) break;
      n = ((uint64_t)f[2] << 8) | f[3];
      header = 4;
    } else if (n == 127) {
      if (s->len - off < 10) break;
      n = 0;
      for (int i = 0; i < 8; i++) n = (n << 8) | f[2 + i];
      header = 10;
    }
    if (s->len - off < header + n) break;
    unsigned char *p = f + header;
    if (opcode == 1 && fin) text_frame(index, p, n, at);
    else if (opcode == 9) send_frame(s->fd, 0xa, p, n);
    else if (opcode == 8) {
      char why[64];
      int code = n >= 2 ? (p[0] << 8) | p[1] : 1005;
      snprintf(why, sizeof why, "%d %.*s", code, n > 2 ? (int)(n - 2 > 40 ? 40 : n - 2) : 0,
               n > 2 ? (const char *)p + 2 : "");
      closed_early(s, why);
    }
    off += header + n;
  }
  if (off > 0) {
    memmove(s->buf, s->buf + off, s->len - off);
    s->len -= off;
  }
}

static void readable(int index) {
  Sock *s = &socks[index];
  while (s->open) {
    if (s->cap - s->len < 4096) {
      s->cap *= 2;
      s->buf = realloc(s->buf, s->cap);
    }
    size_t room = s->cap - s->len;
    ssize_t r = read(s->fd, s->buf + s->len, room);
    if (r > 0) {
      double at = now_ms();
      s->len += (size_t)r;
      frames(index, at);
      /* A short read took all there was: epoll (level-triggered) tells of
         more, and a read to hear EAGAIN would double the system calls. */
      if ((size_t)r < room) return;
      continue;
    }
    if (r < 0 && (errno == EAGAIN || errno == EINTR)) return;
    closed_early(s, r == 0 ? "1006 (connection ended)" : "read failed");
    return;
  }
}

/* Connects and upgrades; returns the fd, or -1 with `why` set. */
static int open_socket(const char *host, const char *port, const char *path, char *why) {
  struct addrinfo hints = {0}, *ai;
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  if (getaddrinfo(host, port, &hints, &ai) != 0) {
    strcpy(why, "cannot resolve host");
    return -1;
  }
  int fd = socket(ai->ai_family, SOCK_STREAM, 0);
  if (fd < 0 || connect(fd, ai->ai_addr, ai->ai_addrlen) != 0) {
    snprintf(why, 200, "connect: %s", strerror(errno));
    freeaddrinfo(ai);
    if (fd >= 0) close(fd);
    return -1;
  }
  freeaddrinfo(ai);
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  char req[4096];
  int n = snprintf(req, sizeof req,
                   "GET %s HTTP/1.1\r\nHost: %s:%s\r\nUpgrade: websocket\r\n"
                   "Connection: Upgrade\r\nSec-WebSocket-Key: cm9va2VyeS1iZW5jaC1rZXk=\r\n"
                   "Sec-WebSocket-Version: 13\r\n\r\n",
                   path, host, port);
  write_all(fd, (unsigned char *)req, (size_t)n);
  /* The answer's head, a byte at a time: nothing after it may be lost. */
  char head[4096];
  size_t got = 0;
  while (got < sizeof head - 1) {
    ssize_t r = read(fd, head + got, 1);
    if (r <= 0) break;
    got++;
    if (got >= 4 && memcmp(head + got - 4, "\r\n\r\n", 4) == 0) break;
  }
  head[got] = 0;
  if (strncmp(head, "HTTP/1.1 101 ", 13) != 0) {
    char *eol = strstr(head, "\r\n");
    if (eol) *eol = 0;
    snprintf(why, 200, "upgrade refused: %.150s", got ? head : "no answer");
    close(fd);
    return -1;
  }
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
  return fd;
}

static void report_counts(void) {
  int any = 0;
  for (int i = 0; i < nids; i++) {
    if (ids[i].count != ids[i].reported) {
      printf("c %s %d\n", ids[i].id, ids[i].count);
      ids[i].reported = ids[i].count;
      any = 1;
    }
  }
  if (any) fflush(stdout);
}

static void results(void) {
  for (int i = 0; i < nids; i++) {
    printf("a %s", ids[i].id);
    for (int k = 0; k < nsocks; k++) {
      if (ids[i].at[k] < 0) fputs(" -", stdout);
      else printf(" %.3f", ids[i].at[k]);
    }
    fputc('\n', stdout);
  }
  int silent = 0, open = 0;
  for (int k = 0; k < nsocks; k++) {
    int any = 0;
    for (int i = 0; i < nids && !any; i++) any = ids[i].at[k] >= 0;
    if (!any) silent++;
    if (socks[k].open) open++;
  }
  printf("d %ld\ns %d\no %d\n", duplicates, silent, open);
  for (int i = 0; i < nclose_kinds; i++) printf("x %d %s\n", close_n[i], close_why[i]);
  puts("e");
  fflush(stdout);
}

/* One command from stdin; returns 0 at `close` or end of input. */
static int command(FILE *in) {
  char line[8192];
  if (!fgets(line, sizeof line, in)) return 0;
  line[strcspn(line, "\n")] = 0;
  if (strncmp(line, "open ", 5) == 0) {
    char host[256], port[16];
    if (sscanf(line + 5, "%255s %15s %d", host, port, &nsocks) != 3) {
      puts("failed bad open line");
      fflush(stdout);
      return 1;
    }
    socks = calloc((size_t)nsocks, sizeof(Sock));
    for (int i = 0; i < nsocks; i++) {
      char path[8192], why[256];
      if (!fgets(path, sizeof path, in)) return 0;
      path[strcspn(path, "\n")] = 0;
      int fd = open_socket(host, port, path, why);
      if (fd < 0) {
        printf("failed socket %d: %s\n", i, why);
        fflush(stdout);
        return 1;
      }
      socks[i] = (Sock){fd, 1, malloc(16384), 0, 16384};
      struct epoll_event ev = {.events = EPOLLIN, .data.u32 = (uint32_t)i + 1};
      epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
    }
    puts("opened");
  } else if (strcmp(line, "clock") == 0) {
    printf("clock %.3f\n", now_ms());
  } else if (strcmp(line, "results") == 0) {
    results();
  } else if (strcmp(line, "close") == 0) {
    closing = 1;
    unsigned char bye[2] = {0x03, 0xe8};
    for (int i = 0; i < nsocks; i++) {
      if (!socks[i].open) continue;
      send_frame(socks[i].fd, 0x8, bye, 2);
      close(socks[i].fd);
      socks[i].open = 0;
    }
    puts("closed");
  }
  fflush(stdout);
  return 1;
}

int main(void) {
  ep = epoll_create1(0);
  struct epoll_event ev = {.events = EPOLLIN, .data.u32 = 0};
  epoll_ctl(ep, EPOLL_CTL_ADD, 0, &ev);
  FILE *in = fdopen(0, "r");
  setvbuf(in, NULL, _IONBF, 0);
  struct epoll_event events[512];
  double last_report = now_ms();
  for (;;) {
    int n = epoll_wait(ep, events, 512, 10);
    for (int i = 0; i < n; i++) {
      uint32_t k = events[i].data.u32;
      if (k == 0) {
        if (!command(in)) return 0;
      } else if (socks[k - 1].open) {
        readable((int)k - 1);
      }
    }
    if (now_ms() - last_report >= 10) {
      report_counts();
      last_report = now_ms();
    }
  }
}
