//
// OutcomesCheck.cpp
//
// bluetusk-outcomes: N writers insert rows with unique keys through runInTransaction() (the default retry
// policy, commit outcome resolution) until a stop file appears, while scripts/outcomes fails the Patroni
// cluster over; then compares what each writer was told with what the primary holds (doc/outcomes.md,
// doc/reliability.md):
//   acknowledged and missing   told committed, not in the table        (goal 0 with synchronous replication)
//   rolled back but present    told not committed, in the table        (goal 0)
//   unknown                    told BlueTuskCommitOutcomeUnknownException (counted; present or not)
//   duplicated                 a key in the table more than once       (goal 0: a retry after a commit)
// Exit status 0 when the goals hold (unknown counts fail only with --strict-unknown), 1 otherwise, 2 on
// bad usage or when the table cannot be set up or read.
//
// Usage: bluetusk-outcomes --connection STRING [--writers N] [--stop-file PATH] [--resolution-seconds S]
//                          [--async] [--strict-unknown]
//

#include "BlueTusk/BlueTuskDataSource.h"
#include "BlueTusk/BlueTuskException.h"
#include "BlueTusk/CommitOutcome.h"
#include "BlueTusk/Transaction.h"
#include "Poco/File.h"
#include "Poco/Thread.h"
#include <atomic>
#include <cstdlib>
#include <iostream>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

using namespace BlueTusk;

namespace {

enum class Told { Committed, RolledBack, Unknown };


class CountingResolver: public CommitOutcomeResolver
	/// Counts the lost COMMIT answers that were resolved, by outcome.
{
public:
	explicit CountingResolver(CommitOutcomeResolver::Ptr inner): _inner(std::move(inner))
	{
	}

	CommitOutcome resolve(const CommitRecord& record, std::string& explanation) override
	{
		const CommitOutcome outcome = _inner->resolve(record, explanation);
		++counts[static_cast<int>(outcome)];
		std::lock_guard<std::mutex> lock(mutex);
		std::cerr << "resolved " << record.toString() << ": " << toString(outcome) << " (" << explanation << ")" << std::endl;
		return outcome;
	}

	std::atomic<int> counts[4] = {};
	std::mutex mutex;

private:
	CommitOutcomeResolver::Ptr _inner;
};


struct Options
{
	std::string connection;
	int writers = 4;
	std::string stopFile = "/tmp/bluetusk-outcomes.stop";
	int resolutionSeconds = 30;
	bool synchronous = true;
	bool strictUnknown = false;
};


bool parse(int argc, char** argv, Options& options)
{
	for (int i = 1; i < argc; ++i)
	{
		const std::string arg = argv[i];
		auto value = [&]() -> std::string
		{
			if (i + 1 >= argc) throw std::runtime_error(arg + " needs a value");
			return argv[++i];
		};
		if (arg == "--connection") options.connection = value();
		else if (arg == "--writers") options.writers = std::atoi(value().c_str());
		else if (arg == "--stop-file") options.stopFile = value();
		else if (arg == "--resolution-seconds") options.resolutionSeconds = std::atoi(value().c_str());
		else if (arg == "--async") options.synchronous = false;
		else if (arg == "--strict-unknown") options.strictUnknown = true;
		else throw std::runtime_error("unknown argument " + arg);
	}
	return !options.connection.empty() && options.writers > 0 && options.resolutionSeconds > 0;
}

} // namespace


int main(int argc, char** argv)
{
	Options options;
	try
	{
		if (!parse(argc, argv, options))
		{
			std::cerr << "usage: bluetusk-outcomes --connection STRING [--writers N] [--stop-file PATH] [--resolution-seconds S] [--async] [--strict-unknown]" << std::endl;
			return 2;
		}
	}
	catch (std::exception& exc)
	{
		std::cerr << exc.what() << std::endl;
		return 2;
	}
	BlueTuskDataSource::Ptr dataSource;
	try
	{
		dataSource = BlueTuskDataSource::create(options.connection);
		BlueTuskConnection setup = dataSource->open();
		setup.executeSimple("DROP TABLE IF EXISTS outcomes; CREATE TABLE outcomes (k text NOT NULL, writer int NOT NULL, at timestamptz DEFAULT clock_timestamp())");
	}
	catch (Poco::Exception& exc)
	{
		std::cerr << "cannot set up the table: " << exc.displayText() << std::endl;
		return 2;
	}
	auto resolver = std::make_shared<CountingResolver>(dataSource->outcomeResolver(Poco::Timespan(options.resolutionSeconds, 0)));
	TransactionOptions transactionOptions;
	transactionOptions.outcomeResolver = resolver;
	transactionOptions.xidAtBegin = true;   // a COMMIT packet that gets no answer at all is resolved too

	std::mutex toldMutex;
	std::map<std::string, Told> told;
	std::atomic<long> retries{0}, failedBeforeCommit{0};
	std::vector<std::thread> writers;
	for (int w = 0; w < options.writers; ++w)
	{
		writers.emplace_back([&, w]
		{
			for (long seq = 0; !Poco::File(options.stopFile).exists(); ++seq)
			{
				const std::string key = "w" + std::to_string(w) + "-" + std::to_string(seq);
				Told outcome = Told::RolledBack;
				try
				{
					const unsigned attempts = dataSource->runInTransaction([&](BlueTuskConnection& lease, Transaction&)
					{
						lease.executeSimple("INSERT INTO outcomes (k, writer) VALUES ('" + key + "', " + std::to_string(w) + ")");
					}, "default", transactionOptions);
					retries += attempts - 1;
					outcome = Told::Committed;
				}
				catch (BlueTuskCommitOutcomeUnknownException& exc)
				{
					outcome = Told::Unknown;
					std::cerr << key << ": unknown: " << exc.displayText() << std::endl;
				}
				catch (BlueTuskTransactionRolledBackException& exc)
				{
					std::cerr << key << ": rolled back: " << exc.displayText() << std::endl;
				}
				catch (Poco::Exception& exc)
				{
					// Every other failure came before COMMIT was sent (runInTransaction() gave up retrying):
					// the transaction was not committed.
					++failedBeforeCommit;
					std::cerr << key << ": failed: " << exc.displayText() << std::endl;
					Poco::Thread::sleep(100);
				}
				std::lock_guard<std::mutex> lock(toldMutex);
				told[key] = outcome;
			}
		});
	}
	for (auto& writer: writers) writer.join();

	std::map<std::string, long> present;
	try
	{
		BlueTuskConnection reader = dataSource->open();
		const QueryResult result = reader.query("SELECT k, count(*) FROM outcomes GROUP BY k");
		for (std::size_t i = 0; i < result.rows.size(); ++i)
			present[result.row(i).get<std::string>(0)] = static_cast<long>(result.row(i).get<Poco::Int64>(1));
	}
	catch (Poco::Exception& exc)
	{
		std::cerr << "cannot read the table: " << exc.displayText() << std::endl;
		return 2;
	}
	long acknowledged = 0, rolledBack = 0, unknown = 0, missing = 0, presentRolledBack = 0, unknownPresent = 0, duplicated = 0, stray = 0;
	for (const auto& entry: told)
	{
		auto it = present.find(entry.first);
		const bool there = it != present.end();
		switch (entry.second)
		{
		case Told::Committed:
			++acknowledged;
			if (!there) { ++missing; std::cerr << entry.first << ": acknowledged and missing" << std::endl; }
			break;
		case Told::RolledBack:
			++rolledBack;
			if (there) { ++presentRolledBack; std::cerr << entry.first << ": rolled back but present" << std::endl; }
			break;
		case Told::Unknown:
			++unknown;
			if (there) ++unknownPresent;
			break;
		}
	}
	for (const auto& entry: present)
	{
		if (entry.second > 1) { ++duplicated; std::cerr << entry.first << ": " << entry.second << " times" << std::endl; }
		if (!told.count(entry.first)) ++stray;
	}
	std::cout << "writes " << told.size() << ": acknowledged " << acknowledged << ", rolled back " << rolledBack
		<< " (" << failedBeforeCommit << " failed before COMMIT), unknown " << unknown << "; retries " << retries << std::endl;
	std::cout << "lost COMMIT answers resolved: committed " << resolver->counts[0] << ", rolled back " << resolver->counts[1]
		<< ", unknown " << resolver->counts[3] << std::endl;
	std::cout << "acknowledged and missing: " << missing << " (goal 0" << (options.synchronous ? "" : ", asynchronous replication: reported only") << ")" << std::endl;
	std::cout << "rolled back but present: " << presentRolledBack << " (goal 0)" << std::endl;
	std::cout << "unknown: " << unknown << " (" << unknownPresent << " present; goal 0 when a survivor could answer)" << std::endl;
	std::cout << "duplicated: " << duplicated << " (goal 0); rows nobody wrote: " << stray << std::endl;
	const bool ok = (missing == 0 || !options.synchronous) && presentRolledBack == 0 && duplicated == 0 && stray == 0 &&
		(unknown == 0 || !options.strictUnknown) && acknowledged > 0;
	std::cout << (ok ? "PASS" : "FAIL") << std::endl;
	return ok ? 0 : 1;
}
