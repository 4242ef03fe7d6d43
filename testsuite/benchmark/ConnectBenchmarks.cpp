//
// ConnectBenchmarks.cpp
//
// one new physical connection to the primary (SCRAM-SHA-256), opened and
// closed, without TLS (SSL Mode=disable / sslmode=disable) and with TLS (require / require).
//
// BlueTusk opens through BlueTuskConnection::open (unpooled: the router with one host, target any), as an
// application would. One connection is opened before timing, so the plugins are loaded and the client's
// SCRAM key cache holds this password's salted key: this measures the steady state of a process that
// connects repeatedly (libpq has no such cache: it runs PBKDF2 on every connection).
//

#include "Benchmarks.h"
#include "BenchmarkEnvironment.h"
#include "BlueTusk/BlueTuskConnection.h"
#include "session/ProtocolSession.h"
#include <stdexcept>

namespace BlueTusk {
namespace Bench {

namespace
{
	const int CONNECT_ITERATIONS = 20;
	const int CONNECT_REPETITIONS = 7;

	void checkTls(BlueTuskConnection& connection, bool tls)
	{
		auto* session = dynamic_cast<ProtocolSession*>(&connection.session());
		if (session && session->isTls() != tls)
			throw std::runtime_error(std::string("BlueTusk session is ") + (session->isTls() ? "TLS" : "plain") + ", expected the opposite");
	}

	void connectBlueTusk(benchmark::State& state, bool tls)
	{
		std::string text = blueTusk(primary(), tls ? "SSL Mode=require" : "SSL Mode=disable");
		guarded(state, [&]
		{
			{
				auto warm = BlueTuskConnection::open(text);
				checkTls(warm, tls);
			}
			for (auto _: state)
			{
				auto connection = BlueTuskConnection::open(text);
				connection.close();
			}
		});
	}

	void connectLibpq(benchmark::State& state, bool tls)
	{
		std::string conninfo = libpq(primary(), tls ? "sslmode=require" : "sslmode=disable");
		guarded(state, [&]
		{
			{
				LibpqConnection warm(conninfo);
				if ((PQsslInUse(warm.get()) != 0) != tls) throw std::runtime_error("libpq TLS state unexpected");
			}
			for (auto _: state)
			{
				PGconn* conn = PQconnectdb(conninfo.c_str());
				if (PQstatus(conn) != CONNECTION_OK)
				{
					std::string message = PQerrorMessage(conn);
					PQfinish(conn);
					throw std::runtime_error("libpq: " + message);
				}
				PQfinish(conn);
			}
		});
	}

	void configure(benchmark::internal::Benchmark* b)
	{
		b->Iterations(CONNECT_ITERATIONS)->Repetitions(repetitions(CONNECT_REPETITIONS))
			->Unit(benchmark::kMicrosecond)->UseRealTime();
	}
}


void registerConnectBenchmarks()
{
	configure(benchmark::RegisterBenchmark("connect_plain/bluetusk", connectBlueTusk, false));
	configure(benchmark::RegisterBenchmark("connect_plain/libpq", connectLibpq, false));
	configure(benchmark::RegisterBenchmark("connect_tls/bluetusk", connectBlueTusk, true));
	configure(benchmark::RegisterBenchmark("connect_tls/libpq", connectLibpq, true));
}

} } // namespace BlueTusk::Bench
