//
// QueryDriver.cpp
//
// A profiling driver for rows 3-5 and 13f of doc/performance.md: N queries of KIND (select1, extended,
// rows, bouncer) with SIDE (bluetusk, libpq) on one open connection to the primary of the local cluster, after
// one warm-up query, then the wall-clock, user and system time per query (getrusage). KIND bouncer is row 13f:
// "SELECT $1::int4 + 1" with 41 through node 1's PgBouncer (BLUETUSK_PGBOUNCER_PORT, default the cluster's
// port + 7), BlueTusk's query() with Server Pooling=transaction against libpq's PQexecParams. Not part of the
// build: callgrind-queries.sh compiles it against a build directory and counts instructions per query.
//
// Usage: QueryDriver SIDE KIND N   (BLUETUSK_TEST_PORT, BLUETUSK_TEST_PASSWORD as for the test suites)
//
#include "BlueTusk/BlueTuskConnection.h"
#include <libpq-fe.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <sys/resource.h>
#include <chrono>
static double us(const timeval& t) { return t.tv_sec * 1e6 + t.tv_usec; }
struct Meter { rusage a; std::chrono::steady_clock::time_point t; long n; Meter(long n): n(n) { getrusage(RUSAGE_SELF, &a); t = std::chrono::steady_clock::now(); } ~Meter() { rusage b; getrusage(RUSAGE_SELF, &b); double w = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t).count(); std::printf("real %.2f user %.2f sys %.2f us/query\n", w / n, (us(b.ru_utime) - us(a.ru_utime)) / n, (us(b.ru_stime) - us(a.ru_stime)) / n); } };
using namespace BlueTusk;
static const char* SQL_1 = "SELECT 1";
static const char* EXT = "SELECT $1::int4 + 1";
static const char* ROWS = "SELECT i::text, 'bravo-' || i, 'charlie-' || i, 'delta-' || i, 'echo-' || i FROM generate_series(1, 10000) AS i";
static std::size_t bytes(const QueryResult& r) { std::size_t b = 0; for (RowRef row: r.rows) for (FieldRef f: row) if (f) b += f->size(); return b; }
static std::size_t bytes(const PGresult* r) { std::size_t b = 0; for (int i = 0; i < PQntuples(r); ++i) for (int c = 0; c < PQnfields(r); ++c) if (!PQgetisnull(r, i, c)) b += PQgetlength(r, i, c); return b; }
int main(int argc, char** argv)
{
	if (argc != 4) { std::fprintf(stderr, "usage: QueryDriver bluetusk|libpq select1|extended|rows|bouncer N\n"); return 2; }
	std::string side = argv[1], kind = argv[2]; long n = std::atol(argv[3]);
	const char* portVariable = std::getenv("BLUETUSK_TEST_PORT");
	const char* passwordVariable = std::getenv("BLUETUSK_TEST_PASSWORD");
	const std::string port = portVariable ? portVariable : "55432";
	const std::string password = passwordVariable ? passwordVariable : "tusk-test-secret";
	const bool bouncer = kind == "bouncer";
	const char* bouncerVariable = std::getenv("BLUETUSK_PGBOUNCER_PORT");
	const std::string target = !bouncer ? port : bouncerVariable ? bouncerVariable : std::to_string(std::atoi(port.c_str()) + 7);
	volatile std::size_t sink = 0;
	if (side == "bluetusk")
	{
		auto c = BlueTuskConnection::open("Host=127.0.0.1;Port=" + target + ";Username=bluetusk;Password=" + password +
			";Database=bluetusk;SSL Mode=disable" + (bouncer ? ";Server Pooling=transaction" : ""));
		const std::vector<FieldValue> p{std::string("41")};
		const Parameters typed{Poco::Int32(41)};
		sink += bytes(c.executeSimple(SQL_1).front());
		Meter m(n);
		for (long i = 0; i < n; ++i)
		{
			if (kind == "select1") sink += bytes(c.executeSimple(SQL_1).front());
			else if (kind == "extended") sink += bytes(c.execute(EXT, p));
			else if (bouncer) sink += static_cast<std::size_t>(c.query(EXT, typed).row(0).get<Poco::Int32>(0));
			else sink += bytes(c.executeSimple(ROWS).front());
		}
	}
	else
	{
		PGconn* c = PQconnectdb(("host=127.0.0.1 port=" + target + " user=bluetusk password=" + password + " dbname=bluetusk gssencmode=disable sslmode=disable").c_str());
		if (PQstatus(c) != CONNECTION_OK) { std::fprintf(stderr, "%s", PQerrorMessage(c)); return 1; }
		const char* v[1] = {"41"};
		{ PGresult* w = PQexec(c, SQL_1); PQclear(w); }
		{ Meter m(n);
		for (long i = 0; i < n; ++i)
		{
			PGresult* r = kind == "select1" ? PQexec(c, SQL_1) : kind == "extended" || bouncer ? PQexecParams(c, EXT, 1, nullptr, v, nullptr, nullptr, 0) : PQexec(c, ROWS);
			if (PQresultStatus(r) != PGRES_TUPLES_OK) { std::fprintf(stderr, "%s", PQerrorMessage(c)); return 1; }
			sink += bytes(r); PQclear(r);
		}
		}
		PQfinish(c);
	}
	return 0;
}
