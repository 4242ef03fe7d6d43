//
// HostOrderPolicyTest.cpp
//
// The standard host-order plugins: plans of sequential and parallel, and that random is a fresh, uniform
// shuffle for every plan (tested over many plans, not one).
//

#include "BlueTusk/RoutingContext.h"
#include "Poco/Util/MapConfiguration.h"
#include "Poco/AutoPtr.h"
#include <cppunit/extensions/HelperMacros.h>
#include <algorithm>
#include <map>
#include <set>

using namespace BlueTusk;

namespace {

std::vector<HostCandidate> candidates(std::size_t count)
{
	std::vector<HostCandidate> list;
	for (std::size_t i = 0; i < count; ++i)
	{
		HostCandidate candidate;
		candidate.endpoint = BlueTuskHostEndpoint("host" + std::to_string(i), 5432);
		candidate.position = i;
		list.push_back(candidate);
	}
	return list;
}


bool isPermutation(const std::vector<std::size_t>& order, std::size_t count)
{
	std::vector<std::size_t> sorted(order);
	std::sort(sorted.begin(), sorted.end());
	for (std::size_t i = 0; i < count; ++i)
	{
		if (sorted.size() != count || sorted[i] != i) return false;
	}
	return true;
}

} // namespace


class HostOrderPolicyTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(HostOrderPolicyTest);
	CPPUNIT_TEST(testNames);
	CPPUNIT_TEST(testSequential);
	CPPUNIT_TEST(testParallel);
	CPPUNIT_TEST(testParallelStaggers);
	CPPUNIT_TEST(testRandomIsPermutation);
	CPPUNIT_TEST(testRandomFirstHostDistribution);
	CPPUNIT_TEST(testRandomPermutationDistribution);
	CPPUNIT_TEST(testRandomSeedReproducible);
	CPPUNIT_TEST(testUnknownName);
	CPPUNIT_TEST_SUITE_END();

public:
	void testNames()
	{
		RoutingContext connector;
		std::vector<std::string> names = connector.policyNames(PolicyFamily::HostOrder);
		for (const char* name: {"parallel", "random", "sequential"})
		{
			CPPUNIT_ASSERT_MESSAGE(name, std::find(names.begin(), names.end(), name) != names.end());
			CPPUNIT_ASSERT_EQUAL(std::string(name), connector.hostOrderPolicy(name)->name());
		}
	}

	void testSequential()
	{
		RoutingContext connector;
		HostOrderPlan plan = connector.hostOrderPolicy("sequential")->plan(candidates(4));
		CPPUNIT_ASSERT(plan.order == std::vector<std::size_t>({0, 1, 2, 3}));
		CPPUNIT_ASSERT_EQUAL(std::size_t(1), plan.concurrency);
		// Learned states do not change the policy's order (the router moves known-bad endpoints).
		auto list = candidates(3);
		list[0].state = HostCandidate::DOWN;
		plan = connector.hostOrderPolicy("sequential")->plan(list);
		CPPUNIT_ASSERT(plan.order == std::vector<std::size_t>({0, 1, 2}));
	}

	void testParallel()
	{
		RoutingContext connector;
		HostOrderPlan plan = connector.hostOrderPolicy("parallel")->plan(candidates(5));
		CPPUNIT_ASSERT(plan.order == std::vector<std::size_t>({0, 1, 2, 3, 4}));
		CPPUNIT_ASSERT_EQUAL(std::size_t(5), plan.concurrency);
		plan = connector.hostOrderPolicy("parallel")->plan(candidates(1));
		CPPUNIT_ASSERT_EQUAL(std::size_t(1), plan.concurrency);
	}

	void testParallelStaggers()
	{
		// Defaults (doc/routing.md, "Startup stagger"): startups 250 ms, connects 1 ms apart; sequential and
		// random do not race and set none.
		RoutingContext connector;
		HostOrderPolicy::Ptr parallel = connector.createHostOrderPolicy("parallel");
		HostOrderPlan plan = parallel->plan(candidates(3));
		CPPUNIT_ASSERT_EQUAL(Poco::Timespan::TimeDiff(250000), plan.startupStagger.totalMicroseconds());
		CPPUNIT_ASSERT_EQUAL(Poco::Timespan::TimeDiff(1000), plan.connectStagger.totalMicroseconds());
		CPPUNIT_ASSERT_EQUAL(Poco::Timespan::TimeDiff(0), connector.hostOrderPolicy("sequential")->plan(candidates(3)).startupStagger.totalMicroseconds());

		Poco::AutoPtr<Poco::Util::MapConfiguration> config(new Poco::Util::MapConfiguration);
		config->setString("startupStaggerMs", "40");
		config->setString("connectStaggerMs", "0.5");
		parallel->configure(*config);
		plan = parallel->plan(candidates(3));
		CPPUNIT_ASSERT_EQUAL(Poco::Timespan::TimeDiff(40000), plan.startupStagger.totalMicroseconds());
		CPPUNIT_ASSERT_EQUAL(Poco::Timespan::TimeDiff(500), plan.connectStagger.totalMicroseconds());

		for (const char* bad: {"-1", "60001", "soon"})
		{
			Poco::AutoPtr<Poco::Util::MapConfiguration> wrong(new Poco::Util::MapConfiguration);
			wrong->setString("startupStaggerMs", bad);
			try
			{
				parallel->configure(*wrong);
				CPPUNIT_FAIL(std::string("accepted startupStaggerMs=") + bad);
			}
			catch (Poco::InvalidArgumentException& exc)
			{
				CPPUNIT_ASSERT_MESSAGE(exc.displayText(), exc.message().find("startupStaggerMs must be between 0 and 60000 milliseconds, not " + std::string(bad)) != std::string::npos);
			}
		}
		CPPUNIT_ASSERT_EQUAL(Poco::Timespan::TimeDiff(40000), parallel->plan(candidates(3)).startupStagger.totalMicroseconds()); // unchanged

		// Nothing applied when one value is bad; a misspelt property is an error, not silently ignored.
		Poco::AutoPtr<Poco::Util::MapConfiguration> half(new Poco::Util::MapConfiguration);
		half->setString("startupStaggerMs", "0.5");
		half->setString("connectStaggerMs", "-3");
		CPPUNIT_ASSERT_THROW(parallel->configure(*half), Poco::InvalidArgumentException);
		CPPUNIT_ASSERT_EQUAL(Poco::Timespan::TimeDiff(40000), parallel->plan(candidates(3)).startupStagger.totalMicroseconds());
		Poco::AutoPtr<Poco::Util::MapConfiguration> typo(new Poco::Util::MapConfiguration);
		typo->setString("startupStagerMs", "10");
		try
		{
			parallel->configure(*typo);
			CPPUNIT_FAIL("accepted a misspelt property");
		}
		catch (Poco::InvalidArgumentException& exc)
		{
			CPPUNIT_ASSERT_MESSAGE(exc.displayText(), exc.message().find("unknown property \"startupStagerMs\" for the parallel host order") != std::string::npos);
		}
		half->setString("connectStaggerMs", "2");
		parallel->configure(*half);   // decimals kept: 0.5 ms
		CPPUNIT_ASSERT_EQUAL(Poco::Timespan::TimeDiff(500), parallel->plan(candidates(3)).startupStagger.totalMicroseconds());
		CPPUNIT_ASSERT_EQUAL(Poco::Timespan::TimeDiff(2000), parallel->plan(candidates(3)).connectStagger.totalMicroseconds());
	}

	void testRandomIsPermutation()
	{
		RoutingContext connector;
		HostOrderPolicy::Ptr random = connector.hostOrderPolicy("random");
		std::set<std::vector<std::size_t>> seen;
		for (int i = 0; i < 200; ++i)
		{
			HostOrderPlan plan = random->plan(candidates(4));
			CPPUNIT_ASSERT(isPermutation(plan.order, 4));
			CPPUNIT_ASSERT_EQUAL(std::size_t(1), plan.concurrency);
			seen.insert(plan.order);
		}
		// A fresh shuffle per plan: 200 plans over 24 permutations show far more than one order.
		CPPUNIT_ASSERT(seen.size() >= 15);
	}

	void testRandomFirstHostDistribution()
	{
		// 3 hosts, 3000 plans: each host is first about 1000 times. With p = 1/3 the standard deviation is
		// about 26; the bounds (+-150) are more than 5 sigma wide.
		RoutingContext connector;
		HostOrderPolicy::Ptr random = connector.hostOrderPolicy("random");
		std::map<std::size_t, int> first;
		for (int i = 0; i < 3000; ++i) ++first[random->plan(candidates(3)).order.front()];
		for (std::size_t host = 0; host < 3; ++host)
		{
			CPPUNIT_ASSERT_MESSAGE("host " + std::to_string(host) + " first " + std::to_string(first[host]) + " times",
				first[host] > 850 && first[host] < 1150);
		}
	}

	void testRandomPermutationDistribution()
	{
		// 6000 plans over the 6 permutations of 3 hosts: chi-square with 5 degrees of freedom. The 99.99%
		// quantile is about 25.7; a uniform shuffle stays far below it.
		RoutingContext connector;
		HostOrderPolicy::Ptr random = connector.hostOrderPolicy("random");
		std::map<std::vector<std::size_t>, int> counts;
		const int plans = 6000;
		for (int i = 0; i < plans; ++i) ++counts[random->plan(candidates(3)).order];
		CPPUNIT_ASSERT_EQUAL(std::size_t(6), counts.size());
		double expected = plans / 6.0;
		double chiSquare = 0;
		for (const auto& count: counts) chiSquare += (count.second - expected) * (count.second - expected) / expected;
		CPPUNIT_ASSERT_MESSAGE("chi-square " + std::to_string(chiSquare), chiSquare < 25.7);
	}

	void testRandomSeedReproducible()
	{
		RoutingContext connector;
		HostOrderPolicy::Ptr one = connector.createHostOrderPolicy("random");
		HostOrderPolicy::Ptr two = connector.createHostOrderPolicy("random");
		CPPUNIT_ASSERT(one.get() != two.get());
		Poco::AutoPtr<Poco::Util::MapConfiguration> config(new Poco::Util::MapConfiguration);
		config->setUInt64("seed", 42);
		one->configure(*config);
		two->configure(*config);
		for (int i = 0; i < 20; ++i) CPPUNIT_ASSERT(one->plan(candidates(5)).order == two->plan(candidates(5)).order);
	}

	void testUnknownName()
	{
		RoutingContext connector;
		try
		{
			connector.hostOrderPolicy("round-robin");
			CPPUNIT_FAIL("expected BlueTuskPluginException");
		}
		catch (BlueTuskPluginException& exc)
		{
			CPPUNIT_ASSERT(exc.message().find("no host order policy named \"round-robin\"") != std::string::npos);
			CPPUNIT_ASSERT(exc.message().find("parallel, random, sequential") != std::string::npos);
		}
	}
};

CPPUNIT_TEST_SUITE_REGISTRATION(HostOrderPolicyTest);
