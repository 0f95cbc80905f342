from confmig.cli import main

main()
