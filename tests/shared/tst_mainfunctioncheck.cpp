// MainFunctionCheck: which main.py texts define the main(dataset_dir, model_output_dir) that the
// worker's runner calls.
#include "packaging/mainfunctioncheck.h"

#include <QTest>

using namespace ddl;

class tst_MainFunctionCheck : public QObject
{
    Q_OBJECT

private slots:
    void check_data();
    void check();
    void parameters();
};

void tst_MainFunctionCheck::check_data()
{
    QTest::addColumn<QByteArray>("source");
    QTest::addColumn<bool>("accepted");

    QTest::newRow("the seed's") << QByteArray("from example_lib import train\n"
                                              "def main(dataset_dir, model_output_dir):\n"
                                              "    train(dataset_dir, model_output_dir)\n")
                                << true;
    QTest::newRow("other names") << QByteArray("def main(data, out):\n    pass\n") << true;
    QTest::newRow("annotated, over lines")
        << QByteArray("def main(\n    dataset_dir: str,  # where the data is\n"
                      "    model_output_dir: str = '/tmp',\n) -> None:\n    pass\n")
        << true;
    QTest::newRow("extra parameter with a default")
        << QByteArray("def main(d, o, epochs=10, shape=(1, 2)):\n    pass\n") << true;
    QTest::newRow("varargs") << QByteArray("def main(*args):\n    pass\n") << true;
    QTest::newRow("keyword-only with default")
        << QByteArray("def main(d, o, *, verbose=False):\n    pass\n") << true;
    QTest::newRow("last definition wins")
        << QByteArray("def main():\n    pass\n\ndef main(d, o):\n    pass\n") << true;
    QTest::newRow("imported") << QByteArray("from trainer import main\n") << true;
    QTest::newRow("imported in a list")
        << QByteArray("from trainer import (setup,\n    main)\n") << true;
    QTest::newRow("imported under another name")
        << QByteArray("from trainer import run as main\n") << true;
    QTest::newRow("assigned") << QByteArray("import trainer\nmain = trainer.run\n") << true;

    QTest::newRow("empty") << QByteArray() << false;
    QTest::newRow("no main") << QByteArray("def train(d, o):\n    pass\n") << false;
    QTest::newRow("no parameters") << QByteArray("def main():\n    pass\n") << false;
    QTest::newRow("one parameter") << QByteArray("def main(dataset_dir):\n    pass\n") << false;
    QTest::newRow("three required")
        << QByteArray("def main(dataset_dir, model_output_dir, epochs):\n    pass\n") << false;
    QTest::newRow("required keyword-only")
        << QByteArray("def main(d, o, *, epochs):\n    pass\n") << false;
    QTest::newRow("a method, not top level")
        << QByteArray("class Job:\n    def main(self, d, o):\n        pass\n") << false;
    QTest::newRow("nested") << QByteArray("def run():\n    def main(d, o):\n        pass\n")
                            << false;
    QTest::newRow("name that only starts with main")
        << QByteArray("def main_loop(d, o):\n    pass\n") << false;
    QTest::newRow("comparison, not assignment") << QByteArray("main == 1\n") << false;
    QTest::newRow("only mentioned")
        << QByteArray("# call main(dataset_dir, model_output_dir)\n") << false;
}

void tst_MainFunctionCheck::check()
{
    QFETCH(QByteArray, source);
    QFETCH(bool, accepted);
    const Status status = MainFunctionCheck::check(source);
    QVERIFY2(status.ok() == accepted,
             status.ok() ? "accepted" : qPrintable(status.error().message));
    if (!accepted) {
        QCOMPARE(status.error().code, QStringLiteral("no_main_function"));
        // The message says what DDL calls, so that the user knows what to write.
        QVERIFY2(
            status.error().message.contains(QStringLiteral("main(dataset_dir, model_output_dir)")),
            qPrintable(status.error().message));
    }
}

void tst_MainFunctionCheck::parameters()
{
    QCOMPARE(MainFunctionCheck::mainParameters("def main(a, b=(1, 2), *c, d: 'x,y' = 3, **e):"),
             (QStringList{QStringLiteral("a"),
                          QStringLiteral("b=(1, 2)"),
                          QStringLiteral("*c"),
                          QStringLiteral("d: 'x,y' = 3"),
                          QStringLiteral("**e")}));
    QCOMPARE(MainFunctionCheck::mainParameters("def main (\n  a,  # first\n  b,\n):"),
             (QStringList{QStringLiteral("a"), QStringLiteral("b")}));
    QCOMPARE(MainFunctionCheck::mainParameters("x = 1\n"), std::nullopt);
    const Status wrong = MainFunctionCheck::check("def main(dataset_dir):\n    pass\n");
    QVERIFY(!wrong.ok());
    QVERIFY2(wrong.error().message.contains(QStringLiteral("defines main(dataset_dir)")),
             qPrintable(wrong.error().message));
}

QTEST_GUILESS_MAIN(tst_MainFunctionCheck)
#include "tst_mainfunctioncheck.moc"
