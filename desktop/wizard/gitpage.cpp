#include "gitpage.h"

#include <QEvent>
#include <QFutureWatcher>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QTreeWidget>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

using namespace Qt::Literals::StringLiterals;

namespace ddl::desktop {

GitPage::GitPage(QWidget *parent)
    : QWizardPage(parent)
{
    m_summary = new QLabel(this);
    m_summary->setObjectName(u"gitSummary"_s);
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_dirtyList = new QPlainTextEdit(this);
    m_dirtyList->setObjectName(u"dirtyList"_s);
    m_dirtyList->setReadOnly(true);
    m_dirtyList->hide();
    m_largest = new QTreeWidget(this);
    m_largest->setObjectName(u"largestFiles"_s);
    m_largest->setRootIsDecorated(false);
    m_largest->header()->setStretchLastSection(false);
    m_largest->header()->setSectionResizeMode(0, QHeaderView::Stretch);
    m_recheck = new QPushButton(this);
    m_recheck->setObjectName(u"recheckButton"_s);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_summary);
    layout->addWidget(m_dirtyList);
    layout->addWidget(m_largest);
    layout->addWidget(m_recheck, 0, Qt::AlignLeft);
    connect(m_recheck, &QPushButton::clicked, this, &GitPage::check);
    retranslateUi();
}

void GitPage::retranslateUi()
{
    setTitle(tr("Code"));
    setSubTitle(tr("DDL packages the last commit of the repository, never the files as they are "
                   "on disk."));
    m_largest->setHeaderLabels({tr("Largest files"), tr("Size")});
    m_recheck->setText(tr("Check again"));
}

void GitPage::changeEvent(QEvent *event)
{
    QWizardPage::changeEvent(event);
    if (event->type() == QEvent::LanguageChange)
        retranslateUi();
}

void GitPage::initializePage()
{
    check();
}

bool GitPage::isComplete() const
{
    return m_hasResult && !m_checking && m_result.isClean();
}

void GitPage::check()
{
    if (m_checking)
        return;
    m_checking = true;
    m_hasResult = false;
    m_summary->setText(tr("Checking the repository and packaging a preview…"));
    m_dirtyList->hide();
    m_largest->clear();
    m_recheck->setEnabled(false);
    emit completeChanged();
    auto *watcher = new QFutureWatcher<GitCheckResult>(this);
    connect(watcher, &QFutureWatcher<GitCheckResult>::finished, this, [this, watcher] {
        watcher->deleteLater();
        m_checking = false;
        m_hasResult = true;
        m_recheck->setEnabled(true);
        show(watcher->result());
        emit completeChanged();
        emit checked();
    });
    watcher->setFuture(QtConcurrent::run(&GitCheck::run, field(u"folder"_s).toString()));
}

void GitPage::show(const GitCheckResult &result)
{
    m_result = result;
    const QLocale locale;
    if (!result.error.code.isEmpty()) {
        m_summary->setText(result.error.message);
        return;
    }
    if (!result.dirty.isEmpty()) {
        m_summary->setText(tr("The working tree of %1 has changes that are not committed. "
                              "Commit them, or put them aside with <code>git stash -u</code>; "
                              "files that should never be sent belong in .gitignore. Then "
                              "press Check again.").arg(result.root.toHtmlEscaped()));
        m_dirtyList->setPlainText(result.dirty.join(u'\n'));
        m_dirtyList->show();
        return;
    }
    m_summary->setText(tr("Commit <b>%1</b>: %2<br>%n file(s), %3 unpacked; the package is %4.",
                          nullptr, result.fileCount)
                           .arg(result.commitId.left(12), result.commitSummary.toHtmlEscaped(),
                                locale.formattedDataSize(result.treeBytes),
                                locale.formattedDataSize(result.packageBytes)));
    for (const auto &[path, size] : result.largest) {
        auto *item = new QTreeWidgetItem(m_largest, {path, locale.formattedDataSize(size)});
        item->setTextAlignment(1, Qt::AlignRight);
    }
}

} // namespace ddl::desktop
