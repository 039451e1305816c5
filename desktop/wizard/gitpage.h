#pragma once

#include "wizard/gitcheck.h"

#include <QWizardPage>

class QLabel;
class QPlainTextEdit;
class QPushButton;
class QTreeWidget;

namespace ddl::desktop {

// Step 2: the git check (HEAD's commit and message; the uncommitted files and the way out) and
// a preview of the package (files, size, the largest files). Runs off the GUI thread.
class GitPage : public QWizardPage
{
    Q_OBJECT
public:
    explicit GitPage(QWidget *parent = nullptr);
    void initializePage() override;
    bool isComplete() const override;

    bool isChecking() const { return m_checking; }
    const GitCheckResult &result() const { return m_result; }

signals:
    void checked();

protected:
    void changeEvent(QEvent *event) override;

private:
    void retranslateUi();
    void check();
    void show(const GitCheckResult &result);

    QLabel *m_summary;
    QPlainTextEdit *m_dirtyList;
    QTreeWidget *m_largest;
    QPushButton *m_recheck;
    GitCheckResult m_result;
    bool m_checking = false;
    bool m_hasResult = false;
};

} // namespace ddl::desktop
