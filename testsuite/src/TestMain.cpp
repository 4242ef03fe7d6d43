//
// TestMain.cpp
//
// The CppUnit driver shared by every BlueTusk test executable:
//   <suite>            runs every registered fixture
//   <suite> NAME...    runs only the named fixtures or tests ("ConnectionStringTest::testUrl")
//

#include <cppunit/BriefTestProgressListener.h>
#include <cppunit/CompilerOutputter.h>
#include <cppunit/TestResult.h>
#include <cppunit/TestResultCollector.h>
#include <cppunit/TestRunner.h>
#include <cppunit/extensions/TestFactoryRegistry.h>
#include <iostream>

int main(int argc, char** argv)
{
	CppUnit::TestResult controller;
	CppUnit::TestResultCollector result;
	controller.addListener(&result);
	CppUnit::BriefTestProgressListener progress;
	controller.addListener(&progress);

	CppUnit::TestRunner runner;
	CppUnit::Test* all = CppUnit::TestFactoryRegistry::getRegistry().makeTest();
	if (argc <= 1)
	{
		runner.addTest(all);
	}
	else
	{
		for (int i = 1; i < argc; ++i)
		{
			try
			{
				runner.addTest(all->findTest(argv[i]));
			}
			catch (std::exception& exc)
			{
				std::cerr << "no such test: " << argv[i] << std::endl;
				return 2;
			}
		}
	}
	runner.run(controller);

	CppUnit::CompilerOutputter outputter(&result, std::cerr);
	outputter.write();
	std::cout << result.runTests() - result.testFailuresTotal() << " passed, " << result.testFailuresTotal() << " failed" << std::endl;
	return result.wasSuccessful() ? 0 : 1;
}
