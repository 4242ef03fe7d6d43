//
// ActiveRecordTest.cpp
//
// Poco's ActiveRecord over the "bluetusk" connector (doc/poco-data.md, "ActiveRecord"): an entity with a
// serial key, a std::string, a Poco::DateTime and a nullable value, created, found, updated, queried with
// ActiveRecord's Query and deleted, its generated key read back. Runs on Debian's Poco 1.11 and on 1.14.2
// (scripts/poco-current).
//

#include "DataTestSupport.h"
#include "Poco/ActiveRecord/ActiveRecord.h"
#include "Poco/ActiveRecord/Context.h"
#include "Poco/ActiveRecord/Query.h"
#include "Poco/Data/TypeHandler.h"
#include "Poco/DateTime.h"
#include "Poco/Nullable.h"
#include "Poco/Version.h"
#include <cppunit/extensions/HelperMacros.h>

using namespace Poco::Data::Keywords;
using Poco::Data::Session;
using BlueTusk::Test::primaryString;

namespace ARTest {

class Note: public Poco::ActiveRecord::ActiveRecord<Poco::Int64>
	/// Hand-written as Poco's ActiveRecord compiler writes its entities, with two differences the
	/// "bluetusk" connector needs on every Poco version: insert() leaves the key to the serial column
	/// (DEFAULT, not NULL) and reads it back with RETURNING, instead of updateID(): Poco 1.11's
	/// lastInsertID() asks for currval('id_seq') of a connector named exactly "PostgreSQL".
{
public:
	using Ptr = Poco::AutoPtr<Note>;

	Note() = default;
	Note(const Note& other) = default;

	std::string title;
	Poco::DateTime created;
	Poco::Nullable<Poco::Int32> rating;

	static Ptr find(Poco::ActiveRecord::Context::Ptr pContext, const ID& id)
	{
		Poco::ActiveRecord::StatementPlaceholderProvider::Ptr pSPP(pContext->statementPlaceholderProvider());
		Ptr pObject(new Note);
		pContext->session() << "SELECT id, title, created, rating FROM ar_notes WHERE id = " << pSPP->next(),
			into(pObject->mutableID()), into(*pObject), bind(id), now;
		return withContext(pObject, pContext);
	}

	void insert()
	{
		Poco::ActiveRecord::StatementPlaceholderProvider::Ptr pSPP(context()->statementPlaceholderProvider());
		context()->session() << "INSERT INTO ar_notes (id, title, created, rating) VALUES (DEFAULT, "
			<< pSPP->next() << ", " << pSPP->next() << ", " << pSPP->next() << ") RETURNING id",
			use(*this), into(mutableID()), now;
	}

	void update()
	{
		Poco::ActiveRecord::StatementPlaceholderProvider::Ptr pSPP(context()->statementPlaceholderProvider());
		context()->session() << "UPDATE ar_notes SET title = " << pSPP->next() << ", created = " << pSPP->next()
			<< ", rating = " << pSPP->next() << " WHERE id = " << pSPP->next(),
			use(*this), bind(id()), now;
	}

	void remove()
	{
		Poco::ActiveRecord::StatementPlaceholderProvider::Ptr pSPP(context()->statementPlaceholderProvider());
		context()->session() << "DELETE FROM ar_notes WHERE id = " << pSPP->next(), bind(id()), now;
	}

	static const std::vector<std::string>& columns()
	{
		static const std::vector<std::string> cols = {"id", "title", "created", "rating"};
		return cols;
	}

	static ID lastKey(Poco::Data::Session& session)
		/// ActiveRecord's own generated-key query (protected there).
	{
		return lastInsertID(session);
	}

	static const std::string& table()
	{
		static const std::string t = "ar_notes";
		return t;
	}
};

} // namespace ARTest


namespace Poco {
namespace Data {

template <>
class TypeHandler<ARTest::Note>
{
public:
	static std::size_t size()
	{
		return 3;
	}

	static void bind(std::size_t pos, const ARTest::Note& ar, AbstractBinder::Ptr pBinder, AbstractBinder::Direction dir)
	{
		TypeHandler<std::string>::bind(pos++, ar.title, pBinder, dir);
		TypeHandler<Poco::DateTime>::bind(pos++, ar.created, pBinder, dir);
		TypeHandler<Poco::Nullable<Poco::Int32>>::bind(pos++, ar.rating, pBinder, dir);
	}

	static void extract(std::size_t pos, ARTest::Note& ar, const ARTest::Note& deflt, AbstractExtractor::Ptr pExtr)
	{
		TypeHandler<std::string>::extract(pos++, ar.title, deflt.title, pExtr);
		TypeHandler<Poco::DateTime>::extract(pos++, ar.created, deflt.created, pExtr);
		TypeHandler<Poco::Nullable<Poco::Int32>>::extract(pos++, ar.rating, deflt.rating, pExtr);
	}

	static void prepare(std::size_t pos, const ARTest::Note& ar, AbstractPreparator::Ptr pPrep)
	{
		TypeHandler<std::string>::prepare(pos++, ar.title, pPrep);
		TypeHandler<Poco::DateTime>::prepare(pos++, ar.created, pPrep);
		TypeHandler<Poco::Nullable<Poco::Int32>>::prepare(pos++, ar.rating, pPrep);
	}
};

} } // namespace Poco::Data


namespace {

using ARTest::Note;

Poco::ActiveRecord::Context::Ptr newContext()
{
	BlueTusk::Test::registerConnectors();
	Session session("bluetusk", primaryString());
	// ActiveRecord picks $n placeholders (and, from 1.12 on, SELECT lastval() for generated keys) by the
	// connector's name only.
	session.setProperty("connectorName", std::string("postgresql"));
	session << "DROP TABLE IF EXISTS ar_notes; "
		"CREATE TABLE ar_notes (id bigserial PRIMARY KEY, title text NOT NULL, created timestamptz NOT NULL, rating int)", now;
	return new Poco::ActiveRecord::Context(session);
}


Note::Ptr newNote(const std::string& title, const Poco::DateTime& created, const Poco::Nullable<Poco::Int32>& rating)
{
	Note::Ptr note = new Note;
	note->title = title;
	note->created = created;
	note->rating = rating;
	return note;
}

} // namespace


class ActiveRecordTest: public CppUnit::TestFixture
{
	CPPUNIT_TEST_SUITE(ActiveRecordTest);
	CPPUNIT_TEST(testConnectorName);
	CPPUNIT_TEST(testCreateFindUpdateDelete);
	CPPUNIT_TEST(testQuery);
	CPPUNIT_TEST(testLastInsertId);
	CPPUNIT_TEST_SUITE_END();

public:
	void testConnectorName()
	{
		BlueTusk::Test::registerConnectors();
		Session session("bluetusk", primaryString());
		CPPUNIT_ASSERT_EQUAL(std::string("bluetusk"), session.connector());
		session.setProperty("connectorName", std::string("postgresql"));
		CPPUNIT_ASSERT_EQUAL(std::string("postgresql"), session.connector());
		CPPUNIT_ASSERT_THROW(session.setProperty("connectorName", std::string("mysql")), Poco::InvalidArgumentException);
		Poco::ActiveRecord::Context context(session);
		CPPUNIT_ASSERT_EQUAL(std::string("$1"), context.statementPlaceholderProvider()->next());
	}

	void testCreateFindUpdateDelete()
	{
		Poco::ActiveRecord::Context::Ptr context = newContext();
		const Poco::DateTime when(2024, 5, 17, 9, 30, 15, 250, 0);
		Note::Ptr first = newNote("first", when, Poco::Nullable<Poco::Int32>());
		first->create(context);
		CPPUNIT_ASSERT(first->isValid());
		const Note::ID firstId = first->id();
		Note::Ptr second = newNote("second", when, 7);
		second->create(context);
		CPPUNIT_ASSERT_EQUAL(firstId + 1, second->id());   // generated keys, in order

		Note::Ptr found = Note::find(context, firstId);
		CPPUNIT_ASSERT(found);
		CPPUNIT_ASSERT_EQUAL(std::string("first"), found->title);
		CPPUNIT_ASSERT(found->created == when);
		CPPUNIT_ASSERT(found->rating.isNull());
		found = Note::find(context, second->id());
		CPPUNIT_ASSERT_EQUAL(7, found->rating.value());

		found->title = "second, edited";
		found->rating.clear();
		found->update();
		Note::Ptr again = Note::find(context, second->id());
		CPPUNIT_ASSERT_EQUAL(std::string("second, edited"), again->title);
		CPPUNIT_ASSERT(again->rating.isNull());

		first->remove();
		Poco::Int64 rows = -1;
		context->session() << "SELECT count(*) FROM ar_notes", into(rows), now;
		CPPUNIT_ASSERT_EQUAL(Poco::Int64(1), rows);
	}

	void testQuery()
	{
		Poco::ActiveRecord::Context::Ptr context = newContext();
		for (int i = 1; i <= 5; ++i)
			newNote("note " + std::to_string(i), Poco::DateTime(2024, 1, i), i % 2 ? Poco::Nullable<Poco::Int32>(i) : Poco::Nullable<Poco::Int32>())->create(context);

		Poco::ActiveRecord::Query<Note> query(context);
		std::vector<Note::Ptr> rated = query.where("rating IS NOT NULL AND rating >= ?").bind(3).orderBy("id").execute();
		CPPUNIT_ASSERT_EQUAL(std::size_t(2), rated.size());
		CPPUNIT_ASSERT_EQUAL(std::string("note 3"), rated[0]->title);
		CPPUNIT_ASSERT_EQUAL(std::string("note 5"), rated[1]->title);
		CPPUNIT_ASSERT(rated[1]->created == Poco::DateTime(2024, 1, 5));

		Poco::ActiveRecord::Query<Note> byTitle(context);
		std::vector<Note::Ptr> one = byTitle.where("title = ?").bind(std::string("note 2")).execute();
		CPPUNIT_ASSERT_EQUAL(std::size_t(1), one.size());
		CPPUNIT_ASSERT(one[0]->rating.isNull());
		one[0]->remove();   // the objects a Query returns have the context: they can be changed and removed

		Poco::ActiveRecord::Query<Note> all(context);
		CPPUNIT_ASSERT_EQUAL(std::size_t(4), all.orderBy("id").execute().size());
	}

	void testLastInsertId()
	{
		// ActiveRecord's own generated-key path (updateID(), what its compiler's insert() calls): SELECT
		// lastval() for a connector named "postgresql" in Poco 1.14; Poco 1.11 asks a connector named
		// "PostgreSQL" for currval('id_seq') and refuses "postgresql", so entities use RETURNING there.
		Poco::ActiveRecord::Context::Ptr context = newContext();
		Note::Ptr note = newNote("key", Poco::DateTime(), 1);
		note->create(context);
#if POCO_VERSION >= 0x010E0000
		CPPUNIT_ASSERT_EQUAL(note->id(), Note::lastKey(context->session()));
#else
		CPPUNIT_ASSERT_THROW(Note::lastKey(context->session()), Poco::NotImplementedException);
#endif
	}
};

CPPUNIT_TEST_SUITE_REGISTRATION(ActiveRecordTest);
