//
// PoolerRefusals.cpp
//
// Library: BlueTusk/Transport
//
// A small lexer after PostgreSQL's (src/backend/parser/scan.l, PostgreSQL docs 4.1 "Lexical Structure"): it
// keeps words (keywords and identifiers) and single-character symbols, and skips what cannot hold a
// statement's keywords: comments, string literals, dollar-quoted strings, numbers and parameters. The
// statements of a text are split at ';' as psql splits them (outside parentheses, and outside the BEGIN
// ATOMIC ... END body of CREATE FUNCTION / PROCEDURE). What a routine's body or a DO block does is not looked
// into (doc/poolers.md, "What the scanner does not look into").
//

#include "PoolerRefusals.h"
#include <cctype>
#include <cstring>
#include <vector>

namespace BlueTusk {
namespace Detail {

namespace {

struct Token
	/// A slice of the statement's text: no copy (the scanner runs before every statement in transaction
	/// pooling, doc/performance.md, row 13f).
{
	enum Kind { Word, Symbol, Other };
	Kind kind;
	const char* text;      /// a word as written (compared without regard to case), a quoted identifier's inside
	std::size_t size;
	bool quoted;           /// a quoted identifier ("..."): a name, never a keyword

	bool is(const char* lowercase) const
		/// An unquoted word equal to lowercase, without regard to case.
	{
		if (kind != Word || quoted || std::strlen(lowercase) != size) return false;
		for (std::size_t i = 0; i < size; ++i)
		{
			if (std::tolower(static_cast<unsigned char>(text[i])) != lowercase[i]) return false;
		}
		return true;
	}

	bool names(const char* function) const
		/// A word naming function: unquoted without regard to case, quoted exactly as written.
	{
		if (kind != Word) return false;
		if (!quoted) return is(function);
		return std::strlen(function) == size && std::memcmp(text, function, size) == 0;
	}

	bool isSymbol(char symbol) const
	{
		return kind == Symbol && text[0] == symbol;
	}
};


bool isIdentStart(char c)
{
	const unsigned char u = static_cast<unsigned char>(c);
	return std::isalpha(u) || c == '_' || u >= 0x80;
}


bool isIdentChar(char c)
{
	return isIdentStart(c) || std::isdigit(static_cast<unsigned char>(c)) || c == '$';
}


class Lexer
	/// The tokens of one text, one at a time; next() is false at its end.
{
public:
	explicit Lexer(const std::string& sql): _sql(sql)
	{
	}

	bool next(Token& token)
	{
		while (_pos < _sql.size())
		{
			const char c = _sql[_pos];
			if (std::isspace(static_cast<unsigned char>(c))) ++_pos;
			else if (startsWith("--")) skipLineComment();
			else if (startsWith("/*")) skipBlockComment();
			else if (c == '\'') skipString(false);
			else if (c == '"') return quotedIdentifier(token);
			else if (c == '$' && dollarTagAt(_pos) > 0) skipDollarQuoted();
			else if (isIdentStart(c))
			{
				if (word(token)) return true;
			}
			else if (std::isdigit(static_cast<unsigned char>(c)) || c == '$') return number(token);
			else
			{
				token = {Token::Symbol, _sql.data() + _pos, 1, false};
				++_pos;
				return true;
			}
		}
		return false;
	}

private:
	bool startsWith(const char* text) const
	{
		return _sql.compare(_pos, std::char_traits<char>::length(text), text) == 0;
	}

	void skipLineComment()
	{
		const std::size_t end = _sql.find('\n', _pos);
		_pos = end == std::string::npos ? _sql.size() : end + 1;
	}

	void skipBlockComment()
	{
		int depth = 0;   // PostgreSQL's block comments nest
		while (_pos < _sql.size())
		{
			if (startsWith("/*"))
			{
				++depth;
				_pos += 2;
			}
			else if (startsWith("*/"))
			{
				_pos += 2;
				if (--depth == 0) return;
			}
			else ++_pos;
		}
	}

	void skipString(bool backslashEscapes)
		/// From the opening quote: '' is a quote; with backslashEscapes (E'...') \' and \\ too.
	{
		++_pos;
		while (_pos < _sql.size())
		{
			const char c = _sql[_pos++];
			if (backslashEscapes && c == '\\') ++_pos;
			else if (c == '\'')
			{
				if (_pos < _sql.size() && _sql[_pos] == '\'') ++_pos;
				else return;
			}
		}
	}

	bool quotedIdentifier(Token& token)
		/// Its inside as written: a doubled quote stays doubled (no refused name has one).
	{
		const std::size_t start = ++_pos;
		std::size_t end = _sql.size();
		while (_pos < _sql.size())
		{
			if (_sql[_pos++] != '"') continue;
			if (_pos < _sql.size() && _sql[_pos] == '"') ++_pos;
			else
			{
				end = _pos - 1;
				break;
			}
		}
		token = {Token::Word, _sql.data() + start, end - start, true};
		return true;
	}

	std::size_t dollarTagAt(std::size_t at) const
		/// The length of a dollar-quote tag ($$ or $name$) starting at at, 0 if none ($1 is a parameter).
	{
		std::size_t end = at + 1;
		if (end < _sql.size() && isIdentStart(_sql[end]))
		{
			while (end < _sql.size() && isIdentChar(_sql[end]) && _sql[end] != '$') ++end;
		}
		return end < _sql.size() && _sql[end] == '$' ? end + 1 - at : 0;
	}

	void skipDollarQuoted()
	{
		const std::size_t length = dollarTagAt(_pos);
		const std::size_t end = _sql.find(_sql.data() + _pos, _pos + length, length);
		_pos = end == std::string::npos ? _sql.size() : end + length;
	}

	bool word(Token& token)
		/// False for a string constant with a prefix (skipped).
	{
		const std::size_t start = _pos;
		while (_pos < _sql.size() && isIdentChar(_sql[_pos])) ++_pos;
		token = {Token::Word, _sql.data() + start, _pos - start, false};
		if (_pos < _sql.size() && _sql[_pos] == '\'')
		{
			// A string constant with a prefix: E'...' (backslash escapes), B'', X'', N''; U&'' is the word
			// "u" and the symbol "&" before the quote (its escapes are not backslashes).
			if (token.is("e") || token.is("b") || token.is("x") || token.is("n"))
			{
				skipString(token.is("e"));
				return false;
			}
		}
		return true;
	}

	bool number(Token& token)
		/// A number or a parameter ($1): digits, letters, dots (1.5e3, 0x1F).
	{
		const std::size_t start = _pos++;
		while (_pos < _sql.size() && (std::isalnum(static_cast<unsigned char>(_sql[_pos])) || _sql[_pos] == '.' || _sql[_pos] == '_')) ++_pos;
		token = {Token::Other, _sql.data() + start, _pos - start, false};
		return true;
	}

	const std::string& _sql;
	std::size_t _pos = 0;
};


using Tokens = std::vector<Token>;


bool isKeyword(const Tokens& tokens, std::size_t i, const char* keyword)
{
	return i < tokens.size() && tokens[i].is(keyword);
}


bool isSymbol(const Tokens& tokens, std::size_t i, char symbol)
{
	return i < tokens.size() && tokens[i].isSymbol(symbol);
}


bool containsSequence(const Tokens& tokens, std::size_t from, const char* first, const char* second, const char* third = nullptr)
{
	for (std::size_t i = from; i + 1 < tokens.size(); ++i)
	{
		if (isKeyword(tokens, i, first) && isKeyword(tokens, i + 1, second) && (!third || isKeyword(tokens, i + 2, third))) return true;
	}
	return false;
}


const char* const SESSION_STAYS = "the pooler hands the server session to other clients once the transaction ends, and this "
	"client's next transaction may run on another one";


PoolerRefusal listenRefusal()
{
	return {"LISTEN", "notifications go to the server session that ran LISTEN; " + std::string(SESSION_STAYS),
		"listen on a connection that does not go through the transaction pooler (a connection string to the server itself)"};
}


PoolerRefusal setRefusal(const std::string& feature)
{
	return {feature, "the setting stays on the server session it ran on; " + std::string(SESSION_STAYS),
		"use SET LOCAL or set_config(name, value, true) inside a transaction block, or ALTER ROLE / ALTER DATABASE ... SET"};
}


PoolerRefusal advisoryLockRefusal(const std::string& function)
{
	return {"the session-level advisory lock " + function + "()",
		"the lock stays with the server session that took it (and its unlock may run on another one); " + std::string(SESSION_STAYS),
		"use pg_advisory_xact_lock() or pg_try_advisory_xact_lock() inside a transaction block"};
}


PoolerRefusal temporaryRefusal(const std::string& feature)
{
	return {feature, "a temporary object belongs to the server session that created it; " + std::string(SESSION_STAYS),
		"create the temporary table inside a transaction block with ON COMMIT DROP and use it in that transaction, or use a regular table"};
}


PoolerRefusal holdRefusal()
{
	return {"DECLARE ... WITH HOLD", "a held cursor outlives its transaction on the server session that declared it; " + std::string(SESSION_STAYS),
		"declare the cursor WITHOUT HOLD inside a transaction block, or use beginFetch() or queryEach()"};
}


PoolerRefusal prepareRefusal()
{
	return {"PREPARE (an SQL-level prepared statement)", "the statement stays on the server session that prepared it; " +
		std::string(SESSION_STAYS), "use prepare() of the session (behind a transaction pooler each run parses it again, in the same "
		"round trip), or a statement with parameters"};
}


PoolerRefusal refuseSet(const Tokens& s)
	/// s starts with SET.
{
	if (isKeyword(s, 1, "local") || isKeyword(s, 1, "transaction") || isKeyword(s, 1, "constraints")) return {};
	if (isKeyword(s, 1, "session"))
	{
		if (isKeyword(s, 2, "characteristics")) return setRefusal("SET SESSION CHARACTERISTICS");
		if (isKeyword(s, 2, "authorization")) return setRefusal("SET SESSION AUTHORIZATION");
		return setRefusal("SET SESSION");
	}
	return setRefusal("SET without LOCAL");
}


PoolerRefusal refuseCreate(const Tokens& s)
	/// s starts with CREATE: CREATE [OR REPLACE] [GLOBAL | LOCAL] {TEMP | TEMPORARY} [RECURSIVE] object.
{
	std::size_t i = 1;
	if (isKeyword(s, i, "or") && isKeyword(s, i + 1, "replace")) i += 2;
	if (isKeyword(s, i, "global") || isKeyword(s, i, "local")) ++i;
	if (!isKeyword(s, i, "temp") && !isKeyword(s, i, "temporary")) return {};
	++i;
	if (isKeyword(s, i, "recursive")) ++i;
	if (isKeyword(s, i, "table"))
	{
		if (containsSequence(s, i, "on", "commit", "drop")) return {};
		return temporaryRefusal("CREATE TEMPORARY TABLE without ON COMMIT DROP");
	}
	std::string kind = i < s.size() ? std::string(s[i].text, s[i].size) : std::string();
	for (char& c: kind) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
	return temporaryRefusal("CREATE TEMPORARY " + kind);
}


PoolerRefusal refuseDeclare(const Tokens& s)
	/// s starts with DECLARE: DECLARE name [options] CURSOR [{WITH | WITHOUT} HOLD] FOR query.
{
	for (std::size_t i = 1; i < s.size() && !isKeyword(s, i, "for"); ++i)
	{
		if (isKeyword(s, i, "with") && isKeyword(s, i + 1, "hold")) return holdRefusal();
	}
	return {};
}


bool setConfigIsSession(const Tokens& s, std::size_t open)
	/// s[open] is the '(' after set_config: true when its third argument is the keyword false.
{
	int depth = 0;
	int argument = 0;
	std::vector<const Token*> third;
	for (std::size_t i = open; i < s.size(); ++i)
	{
		if (isSymbol(s, i, '(') || isSymbol(s, i, '[')) ++depth;
		else if (isSymbol(s, i, ')') || isSymbol(s, i, ']'))
		{
			if (--depth == 0) break;
		}
		if (depth == 1 && isSymbol(s, i, ',')) ++argument;
		else if (depth >= 1 && argument == 2 && !(depth == 1 && isSymbol(s, i, '('))) third.push_back(&s[i]);
	}
	return third.size() == 1 && third.front()->is("false");
}


PoolerRefusal refuseFunctions(const Tokens& s)
	/// The session-level functions called anywhere in the statement.
{
	static const char* const LOCKS[] = {"pg_advisory_lock", "pg_advisory_lock_shared", "pg_try_advisory_lock", "pg_try_advisory_lock_shared"};
	for (std::size_t i = 0; i + 1 < s.size(); ++i)
	{
		if (s[i].kind != Token::Word || !isSymbol(s, i + 1, '(')) continue;
		for (const char* lock: LOCKS)
		{
			if (s[i].names(lock)) return advisoryLockRefusal(lock);
		}
		if (s[i].names("set_config") && setConfigIsSession(s, i + 1)) return setRefusal("set_config(..., false)");
	}
	return {};
}


bool definesRoutine(const Tokens& s)
	/// CREATE [OR REPLACE] FUNCTION | PROCEDURE: its body (dollar-quoted, a string, BEGIN ATOMIC ... END or
	/// RETURN ...) runs when the routine is called, in the caller's transaction, not now.
{
	const std::size_t i = isKeyword(s, 1, "or") && isKeyword(s, 2, "replace") ? 3 : 1;
	return isKeyword(s, 0, "create") && (isKeyword(s, i, "function") || isKeyword(s, i, "procedure"));
}


PoolerRefusal refuseStatement(const Tokens& s)
{
	if (s.empty()) return {};
	if (isKeyword(s, 0, "listen")) return listenRefusal();
	if (isKeyword(s, 0, "set")) return refuseSet(s);
	if (isKeyword(s, 0, "declare")) return refuseDeclare(s);
	if (isKeyword(s, 0, "prepare") && !isKeyword(s, 1, "transaction")) return prepareRefusal();
	if (definesRoutine(s)) return {};
	if (isKeyword(s, 0, "create"))
	{
		PoolerRefusal refusal = refuseCreate(s);
		if (refusal.refused()) return refusal;
	}
	const bool select = isKeyword(s, 0, "select") || isKeyword(s, 0, "with");   // not INSERT INTO temp (a table's name)
	if (select && (containsSequence(s, 0, "into", "temp") || containsSequence(s, 0, "into", "temporary")))
		return temporaryRefusal("SELECT ... INTO TEMPORARY");
	return refuseFunctions(s);
}


bool followedBy(const char* text, std::size_t at, std::size_t size, const char* rest)
	/// text[at...] continues with rest (lowercase letters), without regard to case.
{
	for (; *rest; ++rest, ++at)
	{
		if (at >= size || static_cast<char>(text[at] | 0x20) != *rest) return false;
	}
	return true;
}


} // namespace


bool mayBeRefused(const std::string& sql)
	// LISTEN, SET, set_config, the advisory locks, TEMP, HOLD, PREPARE: a few instructions per character,
	// so the usual statement does not pay for the lexer (doc/performance.md, row 13f).
{
	const char* text = sql.data();
	const std::size_t size = sql.size();
	for (std::size_t at = 0; at < size; ++at)
	{
		switch (text[at] | 0x20)   // a letter's lower case; no other character maps onto one of these
		{
		case 'l': if (followedBy(text, at + 1, size, "isten")) return true; break;
		case 's': if (followedBy(text, at + 1, size, "et")) return true; break;
		case 'a': if (followedBy(text, at + 1, size, "dvisory")) return true; break;
		case 't': if (followedBy(text, at + 1, size, "emp")) return true; break;
		case 'h': if (followedBy(text, at + 1, size, "old")) return true; break;
		case 'p': if (followedBy(text, at + 1, size, "repare")) return true; break;
		default: break;
		}
	}
	return false;
}


PoolerRefusal findPoolerRefusal(const std::string& sql)
{
	if (!mayBeRefused(sql)) return {};
	Lexer lexer(sql);
	Tokens statement;
	Token token{Token::Other, nullptr, 0, false};
	int parentheses = 0;
	int blocks = 0;   // BEGIN (ATOMIC) ... END of a routine's body, and CASE ... END inside it (as psql splits)
	bool more = true;
	while (more)
	{
		more = lexer.next(token);
		if (more && !(token.isSymbol(';') && parentheses == 0 && blocks == 0))
		{
			if (token.isSymbol('(')) ++parentheses;
			else if (token.isSymbol(')') && parentheses > 0) --parentheses;
			else if (parentheses == 0 && statement.size() >= 2 && definesRoutine(statement))
			{
				if (token.is("begin") || (token.is("case") && blocks > 0)) ++blocks;
				else if (token.is("end") && blocks > 0) --blocks;
			}
			statement.push_back(token);
			continue;
		}
		PoolerRefusal refusal = refuseStatement(statement);
		if (refusal.refused()) return refusal;
		statement.clear();
	}
	return {};
}


std::string poolerRefusalMessage(const PoolerRefusal& refusal, const std::string& endpoint, bool detected)
{
	// "server <endpoint>", as the query paths name a server (BlueTuskException::addContext() adds no second one).
	return std::string("Server Pooling=transaction") + (detected ? " (Server Pooling=auto found the transaction pooler)" : "") +
		": " + refusal.feature + " cannot work behind a transaction pooler (server " + endpoint + "): " + refusal.reason + "; " +
		refusal.instead + " (doc/poolers.md). Nothing was sent.";
}

std::string startupParameterHint(const std::string& serverMessage)
{
	if (serverMessage.find("unsupported startup parameter") == std::string::npos) return std::string();
	return " (a connection pooler such as PgBouncer refuses the startup parameters it does not know unless they are in its "
		"ignore_startup_parameters; BlueTusk sends \"options\" only for the keywords Options and Search Path: remove them and set "
		"the search path with ALTER ROLE ... SET search_path or SET LOCAL inside a transaction block, or add options to "
		"ignore_startup_parameters, where PgBouncer drops it and the setting does not apply; doc/poolers.md)";
}

} } // namespace BlueTusk::Detail
